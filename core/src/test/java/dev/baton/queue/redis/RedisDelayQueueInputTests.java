package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.queue.NewTask;
import dev.baton.queue.internal.ConsumableQueue;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Input that cannot be stored faithfully is refused with a clear error, and nothing is written. */
class RedisDelayQueueInputTests extends OrderQueueTests {

	private StringRedisTemplate redis;

	@BeforeEach
	void redis(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@Test
	void delaysBeyondTheLimitAreRefused() {
		assertRefused((queue) -> queue.schedule("o-1", new Order("a", 1), Duration.ofMillis(Long.MAX_VALUE)),
				"Delay must be at most");
		assertRefused((queue) -> queue.schedule("o-1", new Order("a", 1), Duration.ofSeconds(Long.MAX_VALUE)),
				"Delay must be at most");
		assertRefused((queue) -> queue.scheduleAll(List.of(NewTask.of("o-1", new Order("a", 1), Duration.ofDays(36_501)))),
				"Delay must be at most");
	}

	@Test
	void dueTimesBeyondTheLimitAreRefused() {
		assertRefused((queue) -> queue.scheduleAt("o-1", new Order("a", 1), Instant.MAX), "Due time must be at most");
		assertRefused((queue) -> queue.scheduleAt("o-1", new Order("a", 1), Instant.parse("+10000-01-01T00:00:00Z")),
				"Due time must be at most");
	}

	@Test
	void longestDelayIsStoredAndReadBackExactly() {
		assertThat(this.queue.schedule("far", new Order("a", 1), RedisDelayQueue.MAX_DELAY)).isTrue();
		assertThat(this.queue.scheduleAt("farthest", new Order("b", 1), RedisDelayQueue.MAX_DUE_AT)).isTrue();

		assertThat(this.queue.find("farthest")).hasValueSatisfying(
				(task) -> assertThat(task.dueAt()).isEqualTo(RedisDelayQueue.MAX_DUE_AT.truncatedTo(java.time.temporal.ChronoUnit.MILLIS)));
		assertThat(this.queue.peek(10)).hasSize(2);
		assertThat(this.queue.reschedule("far", RedisDelayQueue.MAX_DELAY)).isTrue();
	}

	@Test
	void reschedulingBeyondTheLimitIsRefusedAndKeepsTheTask() {
		this.queue.schedule("o-1", new Order("a", 1), Duration.ofMinutes(5));

		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.reschedule("o-1", Duration.ofMillis(Long.MAX_VALUE)))
			.withMessageContaining("Delay must be at most");
		assertThat(this.queue.find("o-1")).isPresent();
	}

	@Test
	void idsWithLoneSurrogatesAreRefused() {
		assertRefused((queue) -> queue.schedule("\uD800", new Order("a", 1), Duration.ZERO), "lone surrogate");
		assertRefused((queue) -> queue.schedule("x\uDBFF", new Order("a", 1), Duration.ZERO), "lone surrogate");
		assertRefused((queue) -> queue.schedule("\uDC00y", new Order("a", 1), Duration.ZERO), "lone surrogate");
		assertRefused((queue) -> queue.scheduleAll(List.of(NewTask.of("ok", new Order("a", 1), Duration.ZERO),
				NewTask.of("\uD800", new Order("b", 1), Duration.ZERO))), "lone surrogate");

		assertThat(this.queue.schedule("emoji-\uD83D\uDE00", new Order("a", 1), Duration.ZERO)).isTrue();
		assertThat(this.queue.poll(1)).singleElement().satisfies(
				(delivery) -> assertThat(delivery.id()).isEqualTo("emoji-\uD83D\uDE00"));
	}

	@Test
	void visibilityTimeoutBelowOneMillisecondIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.claim(1, Duration.ofNanos(500_000)))
			.withMessageContaining("at least 1ms");
	}

	private void assertRefused(ThrowingConsumer<ConsumableQueue<Order>> call, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> call.accept(this.queue)).withMessageContaining(message);
		assertThat(this.redis.keys("*")).as("keys written").isEmpty();
	}

}
