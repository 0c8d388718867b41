package dev.baton.lock;

/**
 * Thrown when a lock call cannot reach Redis: the connection is down, or Redis did not answer
 * within Baton's lock command timeout. Whether the lock is free or taken is unknown, so the
 * call neither acquired nor waited; the cause says what failed.
 *
 * <p>Distinct from "not acquired": {@code @DistributedLock}'s {@code onFailure} and
 * {@code fallbackMethod} apply to it only where the annotation says so (see the user guide).
 */
public class LockUnavailableException extends LockException {

	/**
	 * Create an exception.
	 * @param message what could not be done, naming the lock
	 * @param cause what failed
	 */
	public LockUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
