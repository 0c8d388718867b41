package dev.baton.lock.annotation;

/**
 * What a {@link DistributedLock @DistributedLock} method does when the lock is not acquired
 * within its wait time.
 */
public enum OnLockFailure {

	/** Throw {@link dev.baton.lock.LockNotAcquiredException}. */
	THROW,

	/**
	 * Do not run the method: return {@code null}, {@code Optional.empty()} or an empty
	 * collection (for {@code void} and {@code @Scheduled} methods).
	 */
	SKIP

}
