package dev.baton.lock;

/**
 * Thrown when a lease is used for something only its holder may do (extend it, hand it over,
 * restore it from a token) but it no longer holds its lock: its lease ran out, the lock was
 * deleted or another owner took it. The lock is not touched: a new owner keeps it.
 */
public class LeaseLostException extends LockException {

	/**
	 * Create an exception.
	 * @param message what could not be done and why, naming the lock
	 */
	public LeaseLostException(String message) {
		super(message, null);
	}

}
