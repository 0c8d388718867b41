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
 * @param <T> the payload type
 */
public record DeadLetter<T>(String id, @Nullable T payload, int attempts, String reason, Instant failedAt) {

}
