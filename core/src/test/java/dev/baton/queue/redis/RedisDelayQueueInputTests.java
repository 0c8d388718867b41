package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
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

	@Test
	void visibilityTimeoutsBeyondTheLimitAreRefusedAndTheTaskKeepsItsDeadline(RedisConnectionFactory connectionFactory) {
		this.queue.schedule("o-1", new Order("a", 1), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);
		Double deadline = this.redis.opsForZSet().score("baton:q:{orders}:inflight", "o-1");

		assertThatIllegalArgumentException().isThrownBy(() -> delivery.extendVisibility(Duration.ofMillis(Long.MAX_VALUE)))
			.withMessageContaining("Visibility timeout must be at most 12h (DelayQueue.MAX_VISIBILITY_TIMEOUT)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.extendVisibility(List.of(delivery), DelayQueue.MAX_VISIBILITY_TIMEOUT.plusMillis(1)))
			.withMessageContaining("at most 12h");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.claim(1, Duration.ofDays(1)))
			.withMessageContaining("at most 12h");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.visibilityTimeout(Duration.ofDays(365)))
			.withMessageContaining("at most 12h");

		assertThat(this.redis.opsForZSet().score("baton:q:{orders}:inflight", "o-1")).isEqualTo(deadline);
		assertThat(delivery.extendVisibility(DelayQueue.MAX_VISIBILITY_TIMEOUT)).isTrue();
	}

	@Test
	void payloadsLargerThanTheLimitAreRefused() {
		Order large = new Order("x".repeat(RedisDelayQueues.DEFAULT_MAX_PAYLOAD_SIZE), 1);

		assertRefused((queue) -> queue.schedule("o-1", large, Duration.ZERO),
				"Payload of task 'o-1' is 1048600 bytes as JSON, more than the 1048576 a queue accepts (max payload size)");
		assertRefused((queue) -> queue.scheduleAll(List.of(NewTask.of("ok", new Order("a", 1), Duration.ZERO),
				NewTask.of("big", large, Duration.ZERO))), "Payload of task 'big' is 1048600 bytes");
	}

	@Test
	void payloadLimitCountsUtf8BytesAndCanBeSet(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.maxPayloadSize(100)
			.build()) {
			DelayQueue<String> small = queues.get("small", String.class);
			// 40 characters, 120 bytes in UTF-8, and the quotes
			assertThatIllegalArgumentException().isThrownBy(() -> small.schedule("€", "€".repeat(40), Duration.ZERO))
				.withMessageContaining("is 122 bytes as JSON, more than the 100");
			assertThat(small.schedule("ascii", "e".repeat(98), Duration.ZERO)).isTrue();
		}
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.maxPayloadSize(3_000_000)
			.build()) {
			assertThat(queues.get("large", String.class).schedule("l", "x".repeat(2_000_000), Duration.ZERO)).isTrue();
		}
	}

	private void assertRefused(ThrowingConsumer<RedisDelayQueue<Order>> call, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> call.accept(this.queue)).withMessageContaining(message);
		assertThat(this.redis.keys("*")).as("keys written").isEmpty();
	}

}
