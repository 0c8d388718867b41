package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.internal.ConsumableQueue;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.RedisSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Queue calls that Redis does not answer (a black-holed connection, a dead cluster node) fail in
 * bounded time, not after the connection's command timeout (Lettuce waits 60 s by default): a
 * visibility extension well before the visibility runs out, other calls after the queue's command
 * timeout.
 */
class BoundedQueueCallTests {

	private ProxiedRedis redis;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.redis = ProxiedRedis.start();
		this.queues = RedisDelayQueues.builder(this.redis.throughProxy(), JsonMapper.builder().build())
			.commandTimeout(Duration.ofMillis(300))
			.build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void extensionThatRedisDoesNotAnswerFailsWithinAThirdOfTheVisibilityTimeout() {
		@SuppressWarnings("unchecked")
		ConsumableQueue<String> queue = (ConsumableQueue<String>) this.queues.get("orders", String.class);
		queue.schedule("o-1", "x", Duration.ZERO);
		List<Delivery<String>> deliveries = queue.claim(1, Duration.ofSeconds(3)).deliveries();

		this.redis.proxy().blackHole();
		long start = System.nanoTime();
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> queue.extendVisibility(deliveries, Duration.ofSeconds(3)))
			.withMessageContaining("extend the visibility of 1 task(s) of queue 'orders'");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));

		this.redis.proxy().heal();
		queue.extendVisibility(deliveries, Duration.ofSeconds(3));
		assertThat(deliveries.get(0).ack()).isTrue();
	}

	@Test
	void callsThatRedisDoesNotAnswerFailWithinTheCommandTimeoutAndLoseNothing() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("o-1", "x", Duration.ofHours(1));

		this.redis.proxy().blackHole();
		failsInTime(() -> queue.schedule("o-2", "x", Duration.ofHours(1)), "schedule task 'o-2' of queue 'orders'");
		failsInTime(() -> queue.find("o-1"), "find task 'o-1' of queue 'orders'");
		failsInTime(() -> queue.reschedule("o-1", Duration.ofMinutes(5)), "reschedule task 'o-1' of queue 'orders'");
		failsInTime(() -> queue.cancel("o-1"), "cancel task 'o-1' of queue 'orders'");
		this.redis.proxy().heal();

		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> queue.find("o-1").isPresent());
	}

	@Test
	void firstUseOfAQueueWhileRedisDoesNotAnswerGoesOnWithinTheCommandTimeout() {
		// Connected first: opening a connection is bounded by the connection factory's own timeouts.
		this.queues.get("invoices", String.class).schedule("i-1", "x", Duration.ofHours(1));
		this.redis.proxy().blackHole();
		// The partition check cannot reach Redis: it warns and the queue uses its configured count.
		DelayQueue<String> queue = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			long start = System.nanoTime();
			DelayQueue<String> orders = this.queues.get("orders", String.class);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
			return orders;
		});
		this.redis.proxy().heal();

		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> queue.schedule("o-1", "x", Duration.ofHours(1)));
		assertThat(queue.find("o-1")).isPresent();
	}

	private static void failsInTime(Executable call, String what) {
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			long start = System.nanoTime();
			assertThatExceptionOfType(RedisSystemException.class).isThrownBy(call::execute)
				.withMessageContaining("Redis did not " + what);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
		});
	}

}
