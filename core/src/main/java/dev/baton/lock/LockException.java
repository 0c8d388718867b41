package dev.baton.lock;

import org.jspecify.annotations.Nullable;

import dev.baton.BatonException;

/**
 * A lock call that did not succeed: not acquired in time ({@link LockNotAcquiredException}),
 * Redis could not be reached ({@link LockUnavailableException}), or the lease it was made for no
 * longer holds its lock ({@link LeaseLostException}).
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
