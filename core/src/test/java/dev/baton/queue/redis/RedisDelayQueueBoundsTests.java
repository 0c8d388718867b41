package dev.baton.queue.redis;

import java.time.Duration;

import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.internal.ConsumableQueue;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** What a queue keeps is bounded: dead letters by count and age, meters and objects by known names. */
@RedisTest
class RedisDelayQueueBoundsTests {

	@Test
	void deadLettersBeyondTheRetainedCountAreDeletedWholly(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.deadLetterRetention((name) -> new DeadLetterRetention(3, Duration.ofDays(1)))
			.build()) {
			ConsumableQueue<String> queue = consumable(queues.get("orders", String.class));
			for (int i = 0; i < 5; i++) {
				queue.schedule("o-" + i, "x", Duration.ZERO);
				Delivery<String> delivery = queue.poll(1).get(0);
				delivery.deadLetter("failed " + i);
			}

			assertThat(queue.deadLetters(10)).extracting((dead) -> dead.id()).containsExactly("o-4", "o-3", "o-2");
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-payloads")).containsExactlyInAnyOrder("o-2", "o-3",
					"o-4");
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-info")).containsExactlyInAnyOrder("o-2", "o-3",
					"o-4");
		}
	}

	@Test
	void deadLettersOlderThanTheRetainedAgeAreDeleted(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) throws InterruptedException {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.deadLetterRetention((name) -> new DeadLetterRetention(100, Duration.ofMillis(200)))
			.build()) {
			ConsumableQueue<String> queue = consumable(queues.get("orders", String.class));
			queue.schedule("old", "x", Duration.ZERO);
			queue.poll(1).get(0).deadLetter("failed");
			Thread.sleep(300);

			queue.schedule("new", "x", Duration.ZERO);
			queue.poll(1).get(0).deadLetter("failed");

			assertThat(queue.deadLetters(10)).extracting((dead) -> dead.id()).containsExactly("new");
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-payloads")).containsExactly("new");
		}
	}

	@Test
	void dynamicQueueNamesLeaveNoMetersOrObjectsBehind(RedisConnectionFactory connectionFactory) {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.meterRegistry(registry)
			.knownQueues((name) -> name.equals("orders"))
			.build()) {
			queues.get("orders", String.class).schedule("o-1", "x", Duration.ofHours(1));
			for (int i = 0; i < 2_000; i++) {
				queues.get("customer-" + i, String.class).schedule("t", "x", Duration.ofHours(1));
			}

			// scheduled, 4 depths, and the schedule timer with its active-tasks twin
			assertThat(registry.getMeters()).hasSizeLessThanOrEqualTo(7);
			assertThat(registry.getMeters()).allMatch((meter) -> "orders".equals(meter.getId().getTag("queue")));
			assertThat(queues.get("orders", String.class)).isSameAs(queues.get("orders", String.class));
			assertThat(queues.get("customer-1", String.class).find("t")).isPresent();
		}
	}

	@Test
	void tasksWhoseDataWasEvictedAreCountedAndDroppedWholly(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.meterRegistry(registry)
			.build()) {
			ConsumableQueue<String> queue = consumable(queues.get("orders", String.class));
			queue.schedule("a", "x", Duration.ZERO);
			queue.schedule("b", "x", Duration.ZERO);
			// What an evicting maxmemory-policy does: the payloads' key is gone, the line is not.
			redis.delete("baton:q:{orders}:tasks");

			assertThat(queue.poll(10)).isEmpty();

			assertThat(registry.get("baton.queue.inconsistent").tag("queue", "orders").counter().count()).isEqualTo(2);
			assertThat(redis.keys("baton:q:{orders}:*")).doesNotContain("baton:q:{orders}:due",
					"baton:q:{orders}:meta");
		}
	}

	@SuppressWarnings("unchecked")
	private static ConsumableQueue<String> consumable(DelayQueue<String> queue) {
		return (ConsumableQueue<String>) queue;
	}

}
