package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tools.jackson.databind.json.JsonMapper;


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
		RedisDelayQueue<String> queue = (RedisDelayQueue<String>) this.queues.get("orders", String.class);
		queue.schedule("o-1", "x", Duration.ZERO);
		List<Delivery<String>> deliveries = queue.claim(1, Duration.ofSeconds(3)).deliveries();

		this.redis.proxy().blackHole();
		long start = System.nanoTime();
		assertThatExceptionOfType(QueueUnavailableException.class)
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

	@Test
	void aClaimAnsweredTooLateHandsItsTasksBackWithoutCountingAnAttempt() {
		@SuppressWarnings("unchecked")
		RedisDelayQueue<String> queue = (RedisDelayQueue<String>) this.queues.get("orders", String.class);
		assertThat(queue.claim(1, Duration.ofMinutes(5)).deliveries()).isEmpty();
		queue.schedule("o-1", "x", Duration.ZERO);

		// Redis claims the task, but its answer comes after the caller gave up.
		this.redis.proxy().latency(Duration.ofMillis(400));
		assertThatExceptionOfType(QueueUnavailableException.class)
			.isThrownBy(() -> queue.claim(1, Duration.ofMinutes(5)))
			.withMessageContaining("claim tasks of queue 'orders'");
		this.redis.proxy().heal();

		// Due again at once, not after the five minutes of its visibility timeout, with no attempt spent.
		Delivery<String> again = await().atMost(Duration.ofSeconds(5))
			.until(() -> queue.claim(1, Duration.ofMinutes(5)).deliveries(), (claimed) -> !claimed.isEmpty())
			.get(0);
		assertThat(again.id()).isEqualTo("o-1");
		assertThat(again.attempt()).isEqualTo(1);
	}

	private static void failsInTime(Executable call, String what) {
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			long start = System.nanoTime();
			assertThatExceptionOfType(QueueUnavailableException.class).isThrownBy(call::execute)
				.withMessageContaining("Redis did not " + what);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
		});
	}

	// Generated ids under calls Redis does not answer: the caller learns them, so that scheduling
	// again under them cannot store a task twice.

	@Test
	void aScheduleThatTimesOutNamesItsGeneratedId() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("warm-up", "x", Duration.ofHours(1));

		this.redis.proxy().blackHole();
		PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
			.isThrownBy(() -> queue.schedule("payment", Duration.ofHours(1)))
			.withCauseInstanceOf(QueueUnavailableException.class)
			.actual();
		this.redis.proxy().heal();

		assertThat(failure.getScheduledIds()).isEmpty();
		String id = failure.getUnscheduledIds().get(0);
		assertThat(failure.getUnscheduledIds()).containsExactly(id);
		// The black-holed call may or may not have reached Redis: scheduling again under the id is safe
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			queue.schedule(id, "payment", Duration.ofHours(1));
			return true;
		});
		assertThat(queue.find(id)).hasValueSatisfying((task) -> assertThat(task.payload()).isEqualTo("payment"));
		assertThat(queue.stats().scheduled()).isEqualTo(2);
	}

	@Test
	void aScheduleAllThatRedisDoesNotAnswerAtAllNamesItsGeneratedIds() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("warm-up", "x", Duration.ofHours(1));
		List<NewTask<String>> tasks = List.of(NewTask.of("a", Duration.ofHours(1)), NewTask.of("b", Duration.ofHours(1)),
				NewTask.of("own", "c", Duration.ofHours(1)));

		this.redis.proxy().blackHole();
		PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
			.isThrownBy(() -> queue.scheduleAll(tasks))
			.actual();
		this.redis.proxy().heal();

		assertThat(failure.getScheduledIds()).isEmpty();
		assertThat(failure.getUnscheduledIds()).hasSize(3).contains("own").doesNotContainNull();
	}

}
