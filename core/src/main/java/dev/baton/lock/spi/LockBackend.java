package dev.baton.lock.spi;

import org.jspecify.annotations.Nullable;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;

/**
 * What a {@link ThreadOwnedLock} asks of its lock manager.
 *
 * @param <L> the manager's lease type
 */
public interface LockBackend<L extends LockLease> {

	/**
	 * Acquire a lease, waiting up to the request's wait time.
	 * @param request the lock, its wait time and lease time
	 * @param interruptible whether an interrupt ends the wait with an {@link InterruptedException}
	 * @return the lease, or {@code null} if the lock was not acquired in time
	 * @throws InterruptedException if interrupted while an interruptible acquisition waited
	 */
	@Nullable L acquire(LockRequest request, boolean interruptible) throws InterruptedException;

	/**
	 * Release a lease if it still holds its lock.
	 * @param lease the lease
	 * @return {@code false} if the lease had been lost (expired, deleted or taken), so nothing was
	 * freed
	 */
	boolean releaseOwned(L lease);

	/**
	 * Whether anyone holds the lock.
	 * @param name the lock
	 * @return whether it is held
	 */
	boolean isLocked(String name);

	/**
	 * Free the lock whoever holds it.
	 * @param name the lock
	 * @return whether it was held
	 */
	boolean forceUnlock(String name);

}
