package dev.baton.lock.annotation;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

import dev.baton.lock.LockLease;

/**
 * The locks that {@code @DistributedLock} methods running on the current thread hold, so that a
 * nested call on the same lock re-enters it instead of waiting for itself, as Redisson's and
 * {@link java.util.concurrent.locks.ReentrantLock}'s holders do. A nested call on another thread
 * (an executor, an asynchronous or reactive result) is another caller and waits like one.
 */
final class ReentrantHolds {

	private final ThreadLocal<Map<String, LockLease>> held = ThreadLocal.withInitial(HashMap::new);

	/** The names that the current thread does not hold yet with a valid lease. */
	SortedSet<String> notHeld(SortedSet<String> names) {
		Map<String, LockLease> leases = this.held.get();
		SortedSet<String> missing = new TreeSet<>();
		for (String name : names) {
			LockLease lease = leases.get(name);
			// A lease lost while held is no lock to re-enter.
			if (lease == null || !lease.isValid()) {
				missing.add(name);
			}
		}
		return missing;
	}

	/** Notes leases the current thread took, until {@link #released}. */
	void taken(List<LockLease> leases) {
		Map<String, LockLease> held = this.held.get();
		leases.forEach((lease) -> held.put(lease.name(), lease));
	}

	/** Forgets leases the current thread took, before they are released. */
	void released(List<LockLease> leases) {
		Map<String, LockLease> held = this.held.get();
		leases.forEach((lease) -> held.remove(lease.name(), lease));
		if (held.isEmpty()) {
			this.held.remove();
		}
	}

}
