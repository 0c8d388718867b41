package dev.baton.queue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Counts of a queue's tasks by state, read in one round trip.
 *
 * @param scheduled tasks that are not due yet
 * @param due tasks that are due and wait for a consumer
 * @param inFlight tasks claimed by a consumer and not settled yet
 * @param dead dead letters
 * @param oldestDueAt the due time of the oldest waiting task, or {@code null} if none is due
 */
public record QueueStats(long scheduled, long due, long inFlight, long dead, @Nullable Instant oldestDueAt) {

}
