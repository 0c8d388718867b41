package dev.baton.lock;

import org.jspecify.annotations.Nullable;

import dev.baton.BatonException;

/**
 * A lock call that did not succeed: not acquired in time ({@link LockNotAcquiredException}), or
 * Redis could not be reached ({@link LockUnavailableException}).
 */
public abstract class LockException extends BatonException {

	/**
	 * Create an exception.
	 * @param message what happened, naming the lock
	 * @param cause why, or {@code null}
	 */
	protected LockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
