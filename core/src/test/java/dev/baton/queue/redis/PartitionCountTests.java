package dev.baton.queue.redis;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.support.ProxiedRedis;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every instance places ids with the partition count recorded in Redis, or refuses to write: the
 * count changes only when asked to.
 */
@RedisTest
class PartitionCountTests {

	@Test
	void anInstanceConfiguredWithAnotherCountRefusesToWriteDeclaredOrNot(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues consumer = queues(connectionFactory, 4, true);
				RedisDelayQueues declaredProducer = queues(connectionFactory, 1, true);
				RedisDelayQueues dynamicProducer = queues(connectionFactory, 1, false)) {
			DelayQueue<String> orders = consumer.get("orders", String.class);

			// The queue is empty: a producer that forgot the count must not take it over.
			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> declaredProducer.get("orders", String.class))
				.satisfies((ex) -> assertThat(ex.getStoredPartitions()).isEqualTo(4));
			DelayQueue<String> undeclared = dynamicProducer.get("orders", String.class);
			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> undeclared.schedule("o-1", "x", Duration.ofHours(1)));
			assertThatExceptionOfType(PartitionCountChangeException.class).isThrownBy(() -> undeclared.find("o-1"));

			assertThat(orders.schedule("o-1", "x", Duration.ofHours(1))).isTrue();
			assertThat(orders.stats().scheduled()).isEqualTo(1);
			assertThat(redis.opsForValue().get("baton:q:{orders}:partitions")).isEqualTo("4");
			assertThat(queues(connectionFactory, 4, true).get("orders", String.class).find("o-1")).isPresent();
		}
	}

	@Test
	void theCountChangesWhenAskedToOnlyWhileTheQueueIsEmptyAndRunningInstancesNoticeIt(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		try (RedisDelayQueues four = queues(connectionFactory, 4, true);
				RedisDelayQueues two = queues(connectionFactory, 2, true)) {
			DelayQueue<String> orders = four.get("orders", String.class);
			orders.schedule("o-1", "x", Duration.ofHours(1));

			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> two.changePartitions("orders", 2))
				.withMessageContaining("holds 1 task(s) placed in 4 partition(s)");
			assertThat(orders.find("o-1")).as("a refused change leaves the count as it was").isPresent();

			assertThat(orders.cancel("o-1")).isTrue();
			two.changePartitions("orders", 2);
			assertThat(redis.opsForValue().get("baton:q:{orders}:partitions")).isEqualTo("2");
			assertThatExceptionOfType(PartitionCountChangeException.class)
				.as("an instance still running with the old count")
				.isThrownBy(() -> orders.schedule("o-2", "x", Duration.ofHours(1)))
				.satisfies((ex) -> assertThat(ex.getStoredPartitions()).isEqualTo(2));
			DelayQueue<String> changed = two.get("orders", String.class);
			assertThat(changed.schedule("o-2", "x", Duration.ofHours(1))).isTrue();
			assertThat(changed.find("o-2")).isPresent();

			changed.cancel("o-2");
			two.changePartitions("orders", 1);
			assertThat(redis.keys("baton:q:*partitions")).as("one partition leaves no record").isEmpty();
		}
	}

	@Test
	void aDeclaredInstanceWhoseCheckRedisDidNotAnswerStillRefusesToWriteWithAnotherCount() {
		try (ProxiedRedis redis = ProxiedRedis.start();
				RedisDelayQueues consumer = queues(redis.direct(), 4, true);
				RedisDelayQueues producer = RedisDelayQueues.builder(redis.throughProxy(), JsonMapper.builder().build())
					.commandTimeout(Duration.ofMillis(300))
					.build()) {
			DelayQueue<String> orders = consumer.get("orders", String.class);
			redis.proxy().blackHole();
			DelayQueue<String> unchecked = producer.get("orders", String.class);
			redis.proxy().heal();

			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> unchecked.schedule("o-1", "x", Duration.ofHours(1)));
			assertThat(orders.stats().scheduled()).isZero();
		}
	}

	@Test
	void aCountRecordedInTheFirstPartitionOnlyIsRecordedInEveryPartitionOnFirstUse(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		// As versions that checked the count only when a queue was first got recorded it.
		redis.opsForValue().set("baton:q:{orders}:partitions", "4");
		try (RedisDelayQueues undeclared = queues(connectionFactory, 4, false)) {
			DelayQueue<String> orders = undeclared.get("orders", String.class);
			for (int i = 0; i < 20; i++) {
				assertThat(orders.schedule("o-" + i, "x", Duration.ofHours(1))).isTrue();
			}
			assertThat(orders.stats().scheduled()).isEqualTo(20);
			for (int partition = 1; partition < 4; partition++) {
				assertThat(redis.opsForValue().get(QueueKeys.of("baton:q:", "orders", partition).partitions()))
					.isEqualTo("4");
			}
		}
	}

	private static RedisDelayQueues queues(RedisConnectionFactory connectionFactory, int partitions, boolean known) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> partitions)
			.knownQueues((name) -> known)
			.build();
	}

}
