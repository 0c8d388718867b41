package dev.baton;

import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedRuntimeException;

/**
 * Root of the exceptions Baton throws while it runs: {@link dev.baton.lock.LockException} for
 * locks, {@link dev.baton.queue.QueueException} for delay queues. Invalid settings are refused at
 * start-up with {@link IllegalArgumentException}s instead, as Spring refuses bad configuration.
 */
public abstract class BatonException extends NestedRuntimeException {

	/**
	 * Create an exception.
	 * @param message what happened
	 */
	protected BatonException(String message) {
		super(message);
	}

	/**
	 * Create an exception.
	 * @param message what happened
	 * @param cause why, or {@code null}
	 */
	protected BatonException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
