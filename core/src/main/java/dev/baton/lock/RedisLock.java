package dev.baton.lock;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A distributed lock owned by a thread and reentrant, like a
 * {@link java.util.concurrent.locks.ReentrantLock}, whose state lives in Redis. Re-entering a
 * held lock costs no round trip; the lock is released when the outermost hold ends.
 *
 * <p>Methods without a lease time hold the lock until {@link #unlock()}, renewed by the
 * watchdog.
 */
public interface RedisLock extends Lock {

	/** The lock name. */
	String getName();

	/**
	 * Try to acquire the lock, waiting up to {@code waitTime}.
	 * @param waitTime how long to wait; {@link Duration#ZERO} tries once
	 * @param leaseTime how long the lock is held unless unlocked earlier, or {@code null} to have
	 * the watchdog renew it until unlocked
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread was interrupted while waiting
	 */
	boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * Release one hold of the lock.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock, or it
	 * held it but the lock was lost (expired or taken); the lock is left untouched
	 */
	@Override
	void unlock();

	/** Whether any instance holds the lock right now (one round trip). */
	boolean isLocked();

	/** Whether the current thread holds the lock. */
	boolean isHeldByCurrentThread();

	/** Number of holds the current thread has on the lock, {@code 0} if none. */
	int getHoldCount();

	/**
	 * The fencing token of the current thread's acquisition, issued on the first call as
	 * {@link LockLease#fencingToken()} describes.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws IllegalStateException if the lock was lost before a token was issued
	 * @throws LockUnavailableException if Redis did not answer in time
	 */
	long getFencingToken();

	/**
	 * Delete the lock whoever holds it: for operators clearing a stuck lock.
	 * @return whether a lock was deleted
	 */
	boolean forceUnlock();

	/**
	 * Not supported by distributed locks.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("RedisLock '" + getName() + "' does not support conditions");
	}

}
