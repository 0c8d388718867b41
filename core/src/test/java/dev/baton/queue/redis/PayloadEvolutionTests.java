package dev.baton.queue.redis;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Payloads written by another version of the application: a newer one added a field, an older
 * one lacks it. Lenient by default, strict per queue.
 */
@RedisTest
class PayloadEvolutionTests {

	record OrderV1(String number) {
	}

	record OrderV2(String number, String currency) {
	}

	@Test
	void lenientQueueReadsOlderAndNewerPayloads(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build()) {
			queues.get("orders", OrderV2.class).schedule("newer", new OrderV2("o-1", "EUR"), Duration.ZERO);
			queues.get("orders", OrderV1.class).schedule("older", new OrderV1("o-2"), Duration.ZERO);

			assertThat(consumable(queues.get("orders", OrderV1.class)).poll(1)).singleElement()
				.satisfies((delivery) -> assertThat(delivery.payload()).isEqualTo(new OrderV1("o-1")));
			assertThat(consumable(queues.get("orders", OrderV2.class)).poll(1)).singleElement()
				.satisfies((delivery) -> assertThat(delivery.payload()).isEqualTo(new OrderV2("o-2", null)));
		}
	}

	@Test
	void strictQueueDeadLettersPayloadsThatDoNotMatchItsType(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues writer = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
				RedisDelayQueues strict = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
					.strictPayloads("orders"::equals)
					.build()) {
			writer.get("orders", OrderV2.class).schedule("newer", new OrderV2("o-1", "EUR"), Duration.ZERO);
			writer.get("orders", OrderV1.class).schedule("older", new OrderV1("o-2"), Duration.ZERO);
			writer.get("orders", OrderV2.class).schedule("current", new OrderV2("o-3", "USD"), Duration.ZERO);

			RedisDelayQueue<OrderV2> queue = consumable(strict.get("orders", OrderV2.class));
			assertThat(queue.poll(10)).extracting(Delivery::id).containsExactly("newer", "current");
			assertThat(queue.deadLetters(10)).extracting((dead) -> dead.id()).containsExactlyInAnyOrder("older");

			RedisDelayQueue<OrderV1> older = consumable(strict.get("orders", OrderV1.class));
			writer.get("orders", OrderV2.class).schedule("newest", new OrderV2("o-4", "CHF"), Duration.ZERO);
			assertThat(older.poll(10)).isEmpty();
			assertThat(older.deadLetters(10)).extracting((dead) -> dead.id()).contains("newest");
		}
	}

	@SuppressWarnings("unchecked")
	private static <T> RedisDelayQueue<T> consumable(DelayQueue<T> queue) {
		return (RedisDelayQueue<T>) queue;
	}

}
