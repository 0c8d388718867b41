package dev.baton.queue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task that is scheduled or in flight, as returned by {@link DelayQueue#find(String)} and
 * {@link DelayQueue#peek(int)}.
 *
 * @param id the task id
 * @param payload the payload, or {@code null} if it cannot be read as the queue's payload type
 * @param dueAt when the task falls (or fell) due
 * @param scheduledAt when the task was scheduled
 * @param inFlight whether a consumer has claimed the task
 * @param unreadablePayload the stored JSON of a payload that cannot be read as the queue's payload
 * type (the task will be dead-lettered when it is claimed), or {@code null} if it was read
 * @param lock the name of the lock the task holds until it ends, or {@code null}
 * @param <T> the payload type
 */
public record ScheduledTask<T>(String id, @Nullable T payload, Instant dueAt, Instant scheduledAt, boolean inFlight,
		@Nullable String unreadablePayload, @Nullable String lock) {

	/**
	 * A task that holds no lock.
	 * @param id the task id
	 * @param payload the payload, or {@code null} if it cannot be read
	 * @param dueAt when the task falls (or fell) due
	 * @param scheduledAt when the task was scheduled
	 * @param inFlight whether a consumer has claimed the task
	 * @param unreadablePayload the stored JSON of a payload that cannot be read, or {@code null}
	 */
	public ScheduledTask(String id, @Nullable T payload, Instant dueAt, Instant scheduledAt, boolean inFlight,
			@Nullable String unreadablePayload) {
		this(id, payload, dueAt, scheduledAt, inFlight, unreadablePayload, null);
	}

	/**
	 * A task whose payload was read.
	 * @param id the task id
	 * @param payload the payload
	 * @param dueAt when the task falls (or fell) due
	 * @param scheduledAt when the task was scheduled
	 * @param inFlight whether a consumer has claimed the task
	 */
	public ScheduledTask(String id, T payload, Instant dueAt, Instant scheduledAt, boolean inFlight) {
		this(id, payload, dueAt, scheduledAt, inFlight, null, null);
	}

	/** Without the payload, which may carry personal data into logs and exception messages. */
	@Override
	public String toString() {
		return "ScheduledTask[id=" + this.id + ", dueAt=" + this.dueAt + ", scheduledAt=" + this.scheduledAt
				+ ", inFlight=" + this.inFlight + ((this.unreadablePayload != null) ? ", unreadable" : "")
				+ ((this.lock != null) ? ", lock=" + this.lock : "") + "]";
	}

}
