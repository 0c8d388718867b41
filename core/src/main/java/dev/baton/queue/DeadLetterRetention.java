package dev.baton.queue;

import java.time.Duration;

/**
 * How many dead letters a queue keeps, and for how long: when a task is dead-lettered, the
 * oldest dead letters beyond {@code maxCount}, and those older than {@code maxAge}, are deleted
 * in the same step.
 *
 * @param maxCount the most dead letters kept, at least 1
 * @param maxAge how long a dead letter is kept, positive
 */
public record DeadLetterRetention(int maxCount, Duration maxAge) {

	/** 10,000 dead letters, for 14 days. */
	public static final DeadLetterRetention DEFAULT = new DeadLetterRetention(10_000, Duration.ofDays(14));

	/**
	 * Validate the retention.
	 * @throws IllegalArgumentException if the count is below 1 or the age not positive
	 */
	public DeadLetterRetention {
		if (maxCount < 1) {
			throw new IllegalArgumentException("Dead letter retention max-count must be at least 1, was " + maxCount);
		}
		if (maxAge == null || maxAge.toMillis() < 1) {
			throw new IllegalArgumentException("Dead letter retention max-age must be at least 1ms, was " + maxAge);
		}
	}

}
