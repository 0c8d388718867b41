package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.queue.DelayQueue;

/**
 * How a container consumes one queue, from configuration (defaults or per queue); annotation
 * attributes override some of these in {@link DelayedTaskEndpoint}.
 *
 * @param maxAttempts deliveries before a task is dead-lettered
 * @param backoff the delay between attempts
 * @param visibilityTimeout how long a claimed task stays invisible to other consumers, at most
 * {@link DelayQueue#MAX_VISIBILITY_TIMEOUT}
 * @param batchSize the most tasks claimed in one round trip
 * @param prefetch the most claimed tasks that may wait for a free handler, beyond the concurrency
 * @param claimAhead how soon a task claimed ahead must be expected to start, judged by the
 * handler's measured duration: fewer tasks are claimed ahead for slower handlers, so that tasks
 * one instance cannot start soon stay in Redis for others, and those that waited more than twice
 * this time and are not expected to start soon are handed back; zero claims {@code prefetch}
 * tasks ahead whatever the handler's speed, and never hands them back
 * @param maxIdlePoll the longest wait between claims when nothing wakes the container
 * @param shutdownTimeout how long stopping waits for running handlers before handing tasks back, at
 * most what the context's shutdown phase leaves (see {@link DelayedTaskListenerRegistry})
 * @param maxDeliveries deliveries of a task, counted like attempts, after which it is
 * dead-lettered without running again however they ended: a task that crashes or stops its
 * worker is never settled, and would otherwise be delivered for ever. A task is always delivered
 * at least {@code maxAttempts} times.
 */
public record ListenerSettings(int maxAttempts, BackoffPolicy backoff, Duration visibilityTimeout, int batchSize,
		int prefetch, Duration claimAhead, Duration maxIdlePoll, Duration shutdownTimeout, int maxDeliveries) {

	/** The default of {@link #maxDeliveries}. */
	public static final int DEFAULT_MAX_DELIVERIES = 10;

	/**
	 * The settings of {@code baton.queue.*} when nothing is configured. A failing task is retried
	 * 24 times over about 13 hours (after 1 s, 2 s, 4 s, ... up to 1 h, then hourly), so that an
	 * outage of a dependency does not dead-letter every task that met it.
	 */
	public static final ListenerSettings DEFAULTS = new ListenerSettings(25,
			new BackoffPolicy(Duration.ofSeconds(1), 2.0, Duration.ofHours(1)), Duration.ofSeconds(30), 128, 1000,
			Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(25), DEFAULT_MAX_DELIVERIES);

	/** The most tasks a container may hold at once: concurrency plus prefetch. */
	public static final int MAX_CAPACITY = 100_000;

	/**
	 * Validate the settings.
	 * @throws InvalidListenerSettingException naming the setting that is out of range
	 */
	public ListenerSettings {
		check(maxAttempts >= 1, "max-attempts", "must be at least 1, was " + maxAttempts);
		check(visibilityTimeout.toMillis() >= 1, "visibility-timeout",
				"must be at least 1ms (Redis keeps it in milliseconds), was " + visibilityTimeout);
		check(visibilityTimeout.compareTo(DelayQueue.MAX_VISIBILITY_TIMEOUT) <= 0, "visibility-timeout",
				"must be at most " + DelayQueue.MAX_VISIBILITY_TIMEOUT.toHours() + "h, was " + visibilityTimeout);
		check(batchSize >= 1, "batch-size", "must be at least 1, was " + batchSize);
		check(prefetch >= 0 && prefetch <= MAX_CAPACITY, "prefetch",
				"must be between 0 and " + MAX_CAPACITY + ", was " + prefetch);
		check(!claimAhead.isNegative(), "claim-ahead", "must not be negative, was " + claimAhead);
		check(maxIdlePoll.toMillis() >= 1, "max-idle-poll", "must be at least 1ms, was " + maxIdlePoll);
		check(!shutdownTimeout.isNegative(), "shutdown-timeout", "must not be negative, was " + shutdownTimeout);
		check(maxDeliveries >= 1, "max-deliveries", "must be at least 1, was " + maxDeliveries);
	}

	/**
	 * Settings with the default {@link #maxDeliveries}.
	 */
	public ListenerSettings(int maxAttempts, BackoffPolicy backoff, Duration visibilityTimeout, int batchSize,
			int prefetch, Duration claimAhead, Duration maxIdlePoll, Duration shutdownTimeout) {
		this(maxAttempts, backoff, visibilityTimeout, batchSize, prefetch, claimAhead, maxIdlePoll, shutdownTimeout,
				DEFAULT_MAX_DELIVERIES);
	}

	/**
	 * Settings that claim a fixed number of tasks ahead, {@code prefetch}, whatever the handler's
	 * speed (a zero {@link #claimAhead}), with the default {@link #maxDeliveries}.
	 */
	public ListenerSettings(int maxAttempts, BackoffPolicy backoff, Duration visibilityTimeout, int batchSize,
			int prefetch, Duration maxIdlePoll, Duration shutdownTimeout) {
		this(maxAttempts, backoff, visibilityTimeout, batchSize, prefetch, Duration.ZERO, maxIdlePoll, shutdownTimeout);
	}

	/**
	 * Whether a delivery of this attempt number is one too many: beyond both {@link #maxDeliveries}
	 * and {@link #maxAttempts}.
	 * @param attempt the delivery's attempt number
	 * @return whether the task must be dead-lettered without running
	 */
	public boolean exceedsDeliveries(int attempt) {
		return attempt > this.maxDeliveries && attempt > this.maxAttempts;
	}

	private static void check(boolean valid, String setting, String problem) {
		if (!valid) {
			throw new InvalidListenerSettingException(setting, problem);
		}
	}

}
