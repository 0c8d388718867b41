package dev.baton.queue.listener;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How a container consumes one queue, from configuration (defaults or per queue); annotation
 * attributes override some of these in {@link DelayedTaskEndpoint}.
 *
 * @param maxAttempts deliveries before a task is dead-lettered
 * @param backoff the delay between attempts
 * @param visibilityTimeout how long a claimed task stays invisible to other consumers
 * @param batchSize the most tasks claimed in one round trip
 * @param prefetch how many claimed tasks may wait for a free handler, beyond the concurrency
 * @param maxIdlePoll the longest wait between claims when nothing wakes the container
 * @param shutdownTimeout how long stopping waits for running handlers before handing tasks back
 */
public record ListenerSettings(int maxAttempts, BackoffPolicy backoff, Duration visibilityTimeout, int batchSize,
		int prefetch, Duration maxIdlePoll, Duration shutdownTimeout) {

	/** The settings of {@code baton.queue.*} when nothing is configured. */
	public static final ListenerSettings DEFAULTS = new ListenerSettings(5,
			new BackoffPolicy(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5)), Duration.ofSeconds(30), 32, 0,
			Duration.ofSeconds(1), Duration.ofSeconds(30));

	public ListenerSettings {
		Assert.isTrue(maxAttempts >= 1, () -> "maxAttempts must be at least 1, got " + maxAttempts);
		Assert.isTrue(isPositive(visibilityTimeout),
				() -> "visibilityTimeout must be positive, got " + visibilityTimeout);
		Assert.isTrue(batchSize >= 1, () -> "batchSize must be at least 1, got " + batchSize);
		Assert.isTrue(prefetch >= 0, () -> "prefetch must not be negative, got " + prefetch);
		Assert.isTrue(isPositive(maxIdlePoll), () -> "maxIdlePoll must be positive, got " + maxIdlePoll);
		Assert.isTrue(!shutdownTimeout.isNegative(),
				() -> "shutdownTimeout must not be negative, got " + shutdownTimeout);
	}

	private static boolean isPositive(Duration duration) {
		return !duration.isNegative() && !duration.isZero();
	}

}
