package dev.baton.autoconfigure.actuate;

import java.util.List;

import dev.baton.autoconfigure.actuate.BatonEndpoint.LockDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.LocksReleased;
import dev.baton.lock.HeldLock;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockManagerStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/**
 * The lock part of the {@link BatonEndpoint}: the locks this instance holds, and the audited
 * release of them all. The endpoint maps paths onto it.
 */
final class BatonEndpointLocks {

	private final ObjectProvider<LockManagerStatus> lockManager;

	private final TaskChangeAudit audit;

	BatonEndpointLocks(ObjectProvider<LockManagerStatus> lockManager, TaskChangeAudit audit) {
		this.lockManager = lockManager;
		this.audit = audit;
	}

	/** The locks this instance holds now, none without a lock manager. */
	List<LockDescriptor> held() {
		LockManagerStatus manager = this.lockManager.getIfUnique();
		return (manager != null) ? manager.heldLocks().stream().map(BatonEndpointLocks::describe).toList() : List.of();
	}

	/**
	 * Releases every lock this instance holds, audited.
	 * @return how many were released, or {@code null} if there is no lock manager
	 */
	@Nullable LocksReleased releaseAll(SecurityContext security) {
		if (!(this.lockManager.getIfUnique() instanceof LockManager manager)) {
			return null;
		}
		return this.audit.record(security, new LocksReleased(manager.releaseAll()));
	}

	private static LockDescriptor describe(HeldLock lock) {
		return new LockDescriptor(lock.name(), lock.group(), lock.fencingToken(), lock.heldFor().toMillis(),
				lock.validFor().toMillis(), lock.renewed());
	}

}
