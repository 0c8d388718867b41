package dev.baton.queue;

/**
 * Thrown when a queue call cannot reach Redis: the connection is down, Redis failed the call, or
 * it did not answer within {@code baton.queue.command-timeout}. A write that failed this way may
 * still have taken effect: scheduling again under the same id is safe. The cause is what failed,
 * often Spring Data Redis's {@code RedisSystemException} or Lettuce's exception.
 */
public class QueueUnavailableException extends QueueException {

	/**
	 * Create an exception.
	 * @param message what could not be done, naming the queue
	 * @param cause what failed
	 */
	public QueueUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
