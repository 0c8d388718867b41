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

	/** Same as {@link #release()}. */
	@Override
	default void close() {
		release();
	}

}
