package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Handles {@code jobs} tasks by recording in Redis which task ran on which consumer, so that the
 * tests can count every handling across JVMs.
 */
class JobHandler {

	static final String HANDLED = "test:handled";

	/** The payload that halts the JVM of a crashing handler. */
	static final String HALT = "halt";

	private final StringRedisTemplate redis;

	private final String consumer;

	private final Duration handleTime;

	private final boolean crashing;

	JobHandler(StringRedisTemplate redis, String consumer, Duration handleTime) {
		this(redis, consumer, handleTime, false);
	}

	/** A handler that halts the JVM on a {@link #HALT} payload if {@code crashing}. */
	JobHandler(StringRedisTemplate redis, String consumer, Duration handleTime, boolean crashing) {
		this.redis = redis;
		this.consumer = consumer;
		this.handleTime = handleTime;
		this.crashing = crashing;
	}

	@DelayedTask(queue = "jobs", concurrency = "4", visibilityTimeout = "${jobs.visibility:2s}")
	void handle(String job, TaskContext context) throws InterruptedException {
		if (this.crashing && HALT.equals(job)) {
			Runtime.getRuntime().halt(1);
		}
		Thread.sleep(this.handleTime.toMillis());
		this.redis.opsForList().rightPush(HANDLED, context.id());
		this.redis.opsForValue().increment("test:by:" + this.consumer);
	}

}
