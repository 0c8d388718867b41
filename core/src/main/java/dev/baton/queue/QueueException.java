package dev.baton.queue;

import org.jspecify.annotations.Nullable;

import dev.baton.BatonException;

/**
 * A delay-queue call that did not succeed: Redis could not be reached
 * ({@link QueueUnavailableException}), a batch was stored in part
 * ({@link PartiallyScheduledException}), or the queue's partitions do not match
 * ({@link dev.baton.queue.redis.PartitionCountChangeException}).
 */
public abstract class QueueException extends BatonException {

	/**
	 * Create an exception.
	 * @param message what happened, naming the queue
	 * @param cause why, or {@code null}
	 */
	protected QueueException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
