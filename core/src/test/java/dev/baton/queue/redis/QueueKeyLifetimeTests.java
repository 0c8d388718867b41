package dev.baton.queue.redis;

import java.time.Duration;
import java.util.Set;

import dev.baton.queue.Delivery;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** A queue that was used and drained leaves no key for ever, and its delivery tokens stay unique. */
@RedisTest
class QueueKeyLifetimeTests {

	@Test
	@SuppressWarnings("unchecked")
	void aDrainedQueueLeavesNoKeyWithoutAnExpiry(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.build()) {
			RedisDelayQueue<String> queue = (RedisDelayQueue<String>) queues.get("customer-42", String.class);
			queue.schedule("a", "x", Duration.ZERO);
			queue.schedule("b", "x", Duration.ofHours(1));
			queue.reschedule("b", Duration.ZERO);
			queue.poll(10).forEach((delivery) -> delivery.retry(Duration.ZERO));
			queue.poll(10).forEach((delivery) -> delivery.deadLetter("failed"));
			queue.redrive("a");
			queue.purgeDeadLetter("b");
			queue.poll(10).forEach(Delivery::ack);

			Set<String> keys = redis.keys("baton:q:{customer-42}*");
			assertThat(keys).isNotEmpty();
			assertThat(keys).allSatisfy((key) -> assertThat(redis.getExpire(key)).as("seconds to live of " + key)
				.isPositive());
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void aStaleDeliveryCannotSettleALaterTaskOfTheSameIdAfterTheCounterExpired(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.build()) {
			RedisDelayQueue<String> queue = (RedisDelayQueue<String>) queues.get("orders", String.class);
			queue.schedule("o-1", "first", Duration.ZERO);
			Delivery<String> first = queue.poll(1).get(0);
			assertThat(first.ack()).isTrue();
			// What the counter's expiry does to a drained queue
			redis.delete("baton:q:{orders}:seq");

			queue.schedule("o-1", "second", Duration.ZERO);
			Delivery<String> second = queue.poll(1).get(0);

			assertThat(first.ack()).as("the first delivery, settled again").isFalse();
			assertThat(queue.find("o-1")).isPresent();
			assertThat(second.ack()).isTrue();
		}
	}

}
