package dev.baton.queue.redis;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** What a queue keeps is bounded: meters and objects by known names (dead letters: DeadLetterRetentionTests). */
@RedisTest
class RedisDelayQueueBoundsTests {

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
			RedisDelayQueue<String> queue = consumable(queues.get("orders", String.class));
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
	private static RedisDelayQueue<String> consumable(DelayQueue<String> queue) {
		return (RedisDelayQueue<String>) queue;
	}

}
