package dev.baton.queue;

import java.time.Instant;

/**
 * A task that is scheduled or in flight, as returned by {@link DelayQueue#find(String)} and
 * {@link DelayQueue#peek(int)}.
 *
 * @param id the task id
 * @param payload the payload
 * @param dueAt when the task falls (or fell) due
 * @param scheduledAt when the task was scheduled
 * @param inFlight whether a consumer has claimed the task
 * @param <T> the payload type
 */
public record ScheduledTask<T>(String id, T payload, Instant dueAt, Instant scheduledAt, boolean inFlight) {

}
