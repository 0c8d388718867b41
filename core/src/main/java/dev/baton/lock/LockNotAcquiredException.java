package dev.baton.lock;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired within its wait time. When Redis said who held the lock
 * then, the message and {@link #getHolder()} name that instance.
 */
public class LockNotAcquiredException extends LockException {

	private final String lockName;

	private final Duration waitTime;

	private final @Nullable String holder;

	/**
	 * Create an exception for the named lock, its holder unknown.
	 * @param lockName the lock that was not acquired
	 * @param waitTime how long the caller waited
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime) {
		this(lockName, waitTime, Optional.empty());
	}

	/**
	 * Create an exception for the named lock, naming the instance that held it.
	 * @param lockName the lock that was not acquired
	 * @param waitTime how long the caller waited
	 * @param holder the instance that held the lock, as {@link LockManager#holderOf(String)} gives it
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime, Optional<String> holder) {
		super("Lock '" + lockName + "' was not acquired within " + waitTime.toMillis() + " ms"
				+ holder.map((instance) -> "; held by instance '" + instance + "'").orElse(""), null);
		this.lockName = lockName;
		this.waitTime = waitTime;
		this.holder = holder.orElse(null);
	}

	/** The lock that was not acquired. */
	public String getLockName() {
		return this.lockName;
	}

	/** How long the caller waited for the lock. */
	public Duration getWaitTime() {
		return this.waitTime;
	}

	/**
	 * The instance that held the lock when the wait ended, by the name its lock manager was given
	 * ({@code baton.lock.instance-name}, by default {@code <hostname>:<pid>}).
	 * @return the holder, or empty if it is not known: the lock was free by then, its holder wrote
	 * no instance name, or Redis could not be asked
	 */
	public Optional<String> getHolder() {
		return Optional.ofNullable(this.holder);
	}

}
