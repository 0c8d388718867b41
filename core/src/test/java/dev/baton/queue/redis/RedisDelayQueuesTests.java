package dev.baton.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

@RedisTest
class RedisDelayQueuesTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void keepsEveryKeyOfAQueueUnderOneHashTagWithTheConfiguredPrefix(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON).keyPrefix("app:").build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);
			queue.schedule("a", new Order("a", 1), Duration.ZERO);
			queue.schedule("b", new Order("b", 1), Duration.ZERO);
			queue.poll(2).get(0).deadLetter("broken");
			queue.schedule("c", new Order("c", 1), Duration.ofHours(1));

			assertThat(redis.keys("*")).allMatch((key) -> key.startsWith("app:{orders}:"))
				.contains("app:{orders}:due", "app:{orders}:tasks", "app:{orders}:inflight", "app:{orders}:dead");
		}
	}

	@Test
	void namesAQueuesKeysAsItsPartitionsLayThemOut() {
		assertThat(RedisDelayQueues.queueKey("app:", "orders", 0, "due")).isEqualTo("app:{orders}:due");
		assertThat(RedisDelayQueues.queueKey(RedisDelayQueues.DEFAULT_KEY_PREFIX, "orders", 3, "inflight"))
			.isEqualTo("baton:q:{orders#3}:p3:inflight")
			.isEqualTo(QueueKeys.of(RedisDelayQueues.DEFAULT_KEY_PREFIX, "orders", 3).inFlight());
		assertThat(QueueKeys.of("app:", "orders", 5).named()).allSatisfy((key) -> assertThat(
				RedisDelayQueues.queueKey("app:", "orders", 5, key.substring("app:{orders#5}:p5:".length())))
			.isEqualTo(key));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisDelayQueues.queueKey("app:", "orders", 0, "inFlight"))
			.withMessageContaining("[due, tasks, meta, inflight, seq, wake, dead, dead-payloads, dead-info, partitions]")
			.withMessageContaining("'inFlight'");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisDelayQueues.queueKey("app:", "orders", 0, "reply:1"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisDelayQueues.queueKey("app:", "orders", RedisDelayQueues.MAX_PARTITIONS, "due"))
			.withMessageContaining("from 0 to 1023");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisDelayQueues.queueKey("app:", "orders", -1, "due"));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisDelayQueues.queueKey("a{", "orders", 0, "due"))
			.withMessageContaining("Key prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisDelayQueues.queueKey("app:", "a}b", 0, "due"))
			.withMessageContaining("hash tag");
	}

	@Test
	void returnsTheSameQueueForTheSameNameAndTypeAndAConsumableOne(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON).build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);

			assertThat(queues.get("orders", Order.class)).isSameAs(queue);
			assertThat(queue).isInstanceOf(ConsumableQueue.class);
			assertThat(queue.name()).isEqualTo("orders");
		}
	}

	@Test
	void pollUsesTheConfiguredVisibilityTimeout(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON)
			.visibilityTimeout(Duration.ofMillis(100))
			.build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);
			queue.schedule("a", new Order("a", 1), Duration.ZERO);
			queue.poll(1);

			List<Delivery<Order>> again = org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> queue.poll(1), (list) -> !list.isEmpty());

			assertThat(again.get(0).attempt()).isEqualTo(2);
		}
	}

	@Test
	void badInputFailsWithClearMessageAndWritesNothing(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON).build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);
			Order order = new Order("a", 1);
			List<NewTask<Order>> oneBadTask = new ArrayList<>();
			oneBadTask.add(NewTask.of("good", order, Duration.ZERO));
			oneBadTask.add(NewTask.of("bad", order, Duration.ofSeconds(-1)));

			assertRejected(redis, (q) -> q.schedule(nullValue(), Duration.ZERO), queue, "Payload must not be null");
			assertRejected(redis, (q) -> q.schedule("", order, Duration.ZERO), queue, "Task id must not be blank");
			assertRejected(redis, (q) -> q.schedule(" ", order, Duration.ZERO), queue, "Task id must not be blank");
			assertRejected(redis, (q) -> q.schedule("x".repeat(257), order, Duration.ZERO), queue,
					"at most 256 characters");
			assertRejected(redis, (q) -> q.schedule(order, Duration.ofMillis(-1)), queue, "negative");
			assertRejected(redis, (q) -> q.schedule(order, nullValue()), queue, "Delay must not be null");
			assertRejected(redis, (q) -> q.scheduleAt("a", order, nullValue()), queue, "Due time must not be null");
			assertRejected(redis, (q) -> q.scheduleAll(oneBadTask), queue, "negative");
			assertRejected(redis, (q) -> q.reschedule("a", Duration.ofMillis(-1)), queue, "negative");
			assertRejected(redis, (q) -> q.poll(0), queue, "must be positive");
			assertRejected(redis, (q) -> q.peek(-1), queue, "must be positive");
			assertRejected(redis, (q) -> q.deadLetters(0), queue, "must be positive");
			assertThatIllegalArgumentException().isThrownBy(() -> queues.get(" ", Order.class))
				.withMessageContaining("Queue name must not be blank");
			assertThatIllegalArgumentException().isThrownBy(() -> queues.get("a}b", Order.class))
				.withMessageContaining("hash tag");
		}
	}

	@Test
	void idOfExactly256CharactersIsAccepted(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON).build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);

			assertThat(queue.schedule("x".repeat(256), new Order("a", 1), Duration.ZERO)).isTrue();
		}
	}

	@Test
	void recordsScheduledTasksAndDepthByState(RedisConnectionFactory connectionFactory) {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JSON)
			.meterRegistry(registry)
			.build()) {
			DelayQueue<Order> queue = queues.get("orders", Order.class);
			queue.schedule("later", new Order("a", 1), Duration.ofHours(1));
			queue.scheduleAll(List.of(NewTask.of("due", new Order("b", 1), Duration.ZERO),
					NewTask.of("claimed", new Order("c", 1), Duration.ZERO)));
			queue.schedule("later", new Order("a", 1), Duration.ofHours(1));
			queue.poll(1);

			assertThat(registry.get("baton.queue.scheduled").tag("queue", "orders").counter().count()).isEqualTo(3);
			assertThat(registry.get("baton.queue.depth").tag("queue", "orders").tag("state", "scheduled").gauge().value())
				.isEqualTo(1);
			assertThat(registry.get("baton.queue.depth").tag("state", "due").gauge().value()).isEqualTo(1);
			assertThat(registry.get("baton.queue.depth").tag("state", "inflight").gauge().value()).isEqualTo(1);
			assertThat(registry.get("baton.queue.depth").tag("state", "dead").gauge().value()).isZero();
		}
	}

	private static void assertRejected(StringRedisTemplate redis, ThrowingConsumer<DelayQueue<Order>> call,
			DelayQueue<Order> queue, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> call.accept(queue)).withMessageContaining(message);
		assertThat(redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().dbSize()))
			.as("keys written").isZero();
	}

	@SuppressWarnings("NullAway")
	private static <T> T nullValue() {
		return null;
	}

}
