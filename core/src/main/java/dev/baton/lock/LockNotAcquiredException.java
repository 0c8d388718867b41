package dev.baton.lock;

import java.time.Duration;

/**
 * Thrown when a lock could not be acquired within its wait time.
 */
public class LockNotAcquiredException extends RuntimeException {

	private final String lockName;

	private final Duration waitTime;

	/**
	 * Create an exception for the named lock.
	 * @param lockName the lock that was not acquired
	 * @param waitTime how long the caller waited
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime) {
		super("Lock '" + lockName + "' was not acquired within " + waitTime.toMillis() + " ms");
		this.lockName = lockName;
		this.waitTime = waitTime;
	}

	/** The lock that was not acquired. */
	public String getLockName() {
		return this.lockName;
	}

	/** How long the caller waited for the lock. */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
