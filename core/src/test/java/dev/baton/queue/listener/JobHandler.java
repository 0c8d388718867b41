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

	private final StringRedisTemplate redis;

	private final String consumer;

	private final Duration handleTime;

	JobHandler(StringRedisTemplate redis, String consumer, Duration handleTime) {
		this.redis = redis;
		this.consumer = consumer;
		this.handleTime = handleTime;
	}

	@DelayedTask(queue = "jobs", concurrency = "4", visibilityTimeout = "${jobs.visibility:2s}")
	void handle(String job, TaskContext context) throws InterruptedException {
		Thread.sleep(this.handleTime.toMillis());
		this.redis.opsForList().rightPush(HANDLED, context.id());
		this.redis.opsForValue().increment("test:by:" + this.consumer);
	}

}
