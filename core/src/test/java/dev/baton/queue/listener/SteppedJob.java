package dev.baton.queue.listener;

import java.time.Duration;
import java.util.function.Consumer;

import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Handles {@code stepped} tasks as a long handler should: in {@link #STEPS} steps of
 * {@link #STEP}, checking {@link TaskContext#isLost()} before each and stopping once the task is
 * lost. Says {@code started=<id> attempt=<n> at=<Redis time, ms>} when it starts and
 * {@code ended <handling> steps=<n>} when it returns, and records each handling in the
 * {@link #HANDLED} list as {@code <consumer> attempt=<n> lost=<isLost() at the end>}.
 */
class SteppedJob {

	static final String QUEUE = "stepped";

	static final String HANDLED = "test:stepped:handled";

	/** The visibility timeout of the queue's claims, as the annotation below sets it. */
	static final Duration VISIBILITY = Duration.ofSeconds(3);

	static final int STEPS = 20;

	static final Duration STEP = Duration.ofMillis(100);

	private final StringRedisTemplate redis;

	private final String consumer;

	private final Consumer<String> say;

	SteppedJob(StringRedisTemplate redis, String consumer, Consumer<String> say) {
		this.redis = redis;
		this.consumer = consumer;
		this.say = say;
	}

	@DelayedTask(queue = QUEUE, visibilityTimeout = "3s")
	void handle(String payload, TaskContext context) throws InterruptedException {
		long startedAt = redisMillis(this.redis);
		this.say.accept("started=" + context.id() + " attempt=" + context.attempt() + " at=" + startedAt);
		int steps = 0;
		while (steps < STEPS && !context.isLost()) {
			Thread.sleep(STEP.toMillis());
			steps++;
		}
		String handling = this.consumer + " attempt=" + context.attempt() + " lost=" + context.isLost();
		this.redis.opsForList().rightPush(HANDLED, handling);
		this.say.accept("ended " + handling + " steps=" + steps);
	}

	/** The Redis server's clock, in milliseconds. */
	static long redisMillis(StringRedisTemplate redis) {
		return redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

}
