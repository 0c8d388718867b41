package dev.baton.lock;

import java.time.Duration;

/**
 * A held distributed lock that is not tied to a thread: any thread may release it, which suits
 * try-with-resources, asynchronous code and virtual threads. Not reentrant.
 */
public interface LockLease extends AutoCloseable {

	/** The name of the lock this lease holds. */
	String name();

	/**
	 * The fencing token of this acquisition: strictly greater than every token issued earlier for
	 * the same lock. Pass it to the resource you protect so that it can reject writes from a holder
	 * whose lease has run out.
	 * <p>A lock taken at once issues its token on the first call, in one round trip that also
	 * checks that this lease still holds the lock; an acquisition that waited has it already. Later
	 * calls return the same token without a round trip. Ask for it while you hold the lock.
	 * @throws IllegalStateException if the lease was released or lost before a token was issued
	 * @throws LockUnavailableException if Redis did not answer in time; the lease is still held
	 */
	long fencingToken();

	/**
	 * Whether this lease still holds the lock as far as this instance knows: {@code false} once
	 * it was released, or found expired or taken by the watchdog.
	 */
	boolean isValid();

	/**
	 * Release the lock. Idempotent; releasing a lease that was lost deletes nothing, so the
	 * lock's new owner keeps it.
	 */
	void release();

	/**
	 * Release the lease but keep the lock in Redis until {@code lockAtLeastFor} has passed since
	 * it was acquired, so that other instances do not run the same short job again at once.
	 * @param lockAtLeastFor the minimum time the lock stays taken after acquisition
	 */
	void release(Duration lockAtLeastFor);

	/**
	 * Keep the lock for at least {@code leaseTime} from now, on Redis's clock, whoever holds the
	 * lease meanwhile: never shortens it. A lease renewed by the watchdog is renewed again once
	 * less than its watchdog lease is left.
	 * @param leaseTime how long the lock stays held at least, positive
	 * @throws LeaseLostException if the lease no longer holds its lock; the loss is reported as the
	 * watchdog reports it ({@code LockLostEvent}, metric)
	 * @throws LockUnavailableException if Redis did not answer in time; the lease is unchanged
	 * @throws UnsupportedOperationException if the lock manager cannot extend leases
	 */
	default void extend(Duration leaseTime) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot extend leases");
	}

	/**
	 * Give the lock to whoever gets the returned token: this lease stops being renewed here and
	 * can no longer release or extend the lock ({@link #isValid()} is {@code false}); only a
	 * lease {@linkplain LockManager#restore(LeaseToken) restored} from the token can. The lock
	 * keeps its remaining lease meanwhile, so {@link #extend(Duration) extend} it first to cover
	 * the time until it is restored. The token carries the fencing token (issued now if it was
	 * not yet).
	 * @return the token, a secret
	 * @throws LeaseLostException if the lease no longer holds its lock
	 * @throws LockUnavailableException if Redis did not answer in time: the lock may or may not
	 * have been handed over, and nobody gets the token, so Baton releases it (quietly, owner
	 * checked: never a lock someone else took since); this lease is not renewed any more
	 * @throws UnsupportedOperationException if the lock manager cannot hand leases over
	 */
	default LeaseToken handOver() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot hand leases over");
	}

	/** Same as {@link #release()}. */
	@Override
	default void close() {
		release();
	}

}
