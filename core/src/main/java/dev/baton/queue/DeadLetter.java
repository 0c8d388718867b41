package dev.baton.queue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task that failed for good, kept until it is {@linkplain DelayQueue#redrive(String)
 * redriven} or {@linkplain DelayQueue#purgeDeadLetter(String) purged}.
 *
 * @param id the task id
 * @param payload the payload, or {@code null} if it could not be read
 * @param attempts how many times the task was delivered
 * @param reason why the task failed
 * @param failedAt when it was dead-lettered
 * @param unreadablePayload the stored JSON of a payload that cannot be read as the queue's payload
 * type, so that an operator can see the bad data; {@code null} when the payload was read
 * @param <T> the payload type
 */
public record DeadLetter<T>(String id, @Nullable T payload, int attempts, String reason, Instant failedAt,
		@Nullable String unreadablePayload) {

	/**
	 * A dead letter whose payload was read.
	 * @param id the task id
	 * @param payload the payload
	 * @param attempts how many times the task was delivered
	 * @param reason why the task failed
	 * @param failedAt when it was dead-lettered
	 */
	public DeadLetter(String id, @Nullable T payload, int attempts, String reason, Instant failedAt) {
		this(id, payload, attempts, reason, failedAt, null);
	}

	/**
	 * Without the payload and the reason, which may carry personal data into logs and exception
	 * messages.
	 */
	@Override
	public String toString() {
		return "DeadLetter[id=" + this.id + ", attempts=" + this.attempts + ", failedAt=" + this.failedAt
				+ ((this.unreadablePayload != null) ? ", unreadable" : "") + "]";
	}

}
