package dev.baton.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What a lock manager tells operators about itself: the locks it holds, whether its store
 * answers, how its lease renewals go, and when nothing is held any more. Spring Boot's
 * {@code baton} health contributor, actuator endpoint and graceful shutdown read it from the
 * beans of this type, so a {@link LockManager} of the application's own gets them by
 * implementing it too. {@link dev.baton.lock.redis.RedisLockManager} and Baton's in-memory test double implement it.
 */
public interface LockManagerStatus {

	/**
	 * The locks this manager holds now.
	 * @return a snapshot, in no particular order
	 */
	List<HeldLock> heldLocks();

	/**
	 * How many leases this manager holds now. The default counts {@link #heldLocks()}.
	 * @return the number of leases held
	 */
	default int heldCount() {
		return heldLocks().size();
	}

	/**
	 * Asks the store of the locks whether it answers, within the manager's command timeout.
	 * @return the round trip time
	 * @throws LockUnavailableException if the store does not answer in time
	 */
	Duration ping();

	/**
	 * When the manager last renewed every lease it had to renew. The default is {@code null}, for
	 * a manager that renews nothing.
	 * @return the time of the last renewal, or {@code null} if there has been none
	 */
	default @Nullable Instant lastRenewal() {
		return null;
	}

	/**
	 * Why the manager's last renewal failed; while it is not {@code null} the held locks may run
	 * out unrenewed. The default is {@code null}, for a manager that renews nothing.
	 * @return the failure, or {@code null} if the last renewal succeeded or none was due
	 */
	default @Nullable Throwable lastRenewalFailure() {
		return null;
	}

	/**
	 * Completes once no lease of this manager is held any more and none can be granted: every
	 * holder has released, or lost or outlived its lease, and no acquisition is under way (a
	 * waiter in line could still be handed the lock). A graceful shutdown waits for it before it
	 * closes the manager.
	 * @return a future that completes when nothing is held
	 */
	CompletableFuture<Void> allReleased();

}
