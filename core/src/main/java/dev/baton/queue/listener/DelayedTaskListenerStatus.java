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
 * @param progressing whether the container is running and none of what {@code stall} names has
 * lasted longer than {@link #STALLED_POLLS} retries of a failed claim (a failed claim is retried
 * after its {@code maxIdlePoll} or a second, whichever is shorter)
 * @param stall why the container does not progress: its claims, acknowledgements or visibility
 * extensions keep failing, or every permit is held and none was freed (no handler finished and
 * was acknowledged) for that long; {@code null} while it progresses
 */
public record DelayedTaskListenerStatus(String queue, boolean running, @Nullable Instant lastClaim,
		boolean progressing, @Nullable String stall) {

	/** After how many retries of failing claims a container is not progressing. */
	public static final int STALLED_POLLS = 10;

}
