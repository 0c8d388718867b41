package dev.baton.queue.listener;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a health check needs to know about the listener container of one queue, read at one
 * moment.
 *
 * @param queue the queue name
 * @param running whether the container is started and its claim loop is alive
 * @param lastClaim when the last claim came back from Redis successfully, or {@code null} if
 * none has yet
 * @param progressing whether the container is running and its claims have not been failing for
 * longer than {@link #STALLED_POLLS} retries (a failed claim is retried after its
 * {@code maxIdlePoll} or a second, whichever is shorter)
 */
public record DelayedTaskListenerStatus(String queue, boolean running, @Nullable Instant lastClaim,
		boolean progressing) {

	/** After how many retries of failing claims a container is not progressing. */
	public static final int STALLED_POLLS = 10;

}
