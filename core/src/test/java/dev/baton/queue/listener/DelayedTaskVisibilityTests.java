package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.FaultyQueues.Call;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How the container keeps its tasks invisible to other consumers: the periodic extension after a
 * failed one, an explicit extension by the handler, and Redis's answer that a delivery is stale.
 */
@RedisTest
class DelayedTaskVisibilityTests {

	private static final BackoffPolicy SHORT_BACKOFF = new BackoffPolicy(Duration.ofMillis(50), 2.0,
			Duration.ofMillis(200));

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void explicitExtensionIsNotShortenedByThePeriodicOne(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		Held handler = new Held(Duration.ofMinutes(10));
		ListenerContext app = start(connectionFactory, new FaultyQueues(), settings(Duration.ofMillis(600), 0),
				handler);
		DelayQueue<Parcel> queue = app.queues.get("held", Parcel.class);
		queue.schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.ids.contains("h-1"));

		// several periodic extensions of 600 ms each
		await().pollDelay(Duration.ofMillis(1000)).until(() -> true);

		assertThat(millisVisibleFor(redis, "held", "h-1")).as("ms until the task becomes visible")
			.isGreaterThan(Duration.ofMinutes(9).toMillis());
		handler.release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("h-1").isEmpty());
	}

	@Test
	void prefetchedDeliveryThatRedisReportsStaleIsNeverStarted(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.EXTEND, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		// h-1 keeps itself invisible; h-2 waits in the prefetch while the container cannot extend it
		Held handler = new Held(Duration.ofMinutes(10));
		ListenerContext one = start(connectionFactory, faults, settings(Duration.ofSeconds(1), 1), handler);
		DelayQueue<Parcel> queue = one.queues.get("held", Parcel.class);
		queue.schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);
		queue.schedule("h-2", new Parcel("h-2", 2), Duration.ofMillis(50));
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.ids.contains("h-1") && queue.stats().inFlight() == 2);
		Held other = new Held(Duration.ZERO);
		other.release.countDown();
		start(connectionFactory, new FaultyQueues(), settings(Duration.ofSeconds(1), 0), other);
		// its visibility ran out: the other instance ran h-2 and acknowledged it
		await().atMost(Duration.ofSeconds(10)).until(() -> other.ids.contains("h-2") && queue.find("h-2").isEmpty());

		// the extensions succeed again, and Redis answers that h-2's delivery is stale
		faults.fail(Call.EXTEND, 0, () -> new QueryTimeoutException("unused"));
		int calls = faults.calls(Call.EXTEND);
		await().atMost(Duration.ofSeconds(5)).until(() -> faults.calls(Call.EXTEND) >= calls + 2);
		handler.release.countDown();

		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("h-1").isEmpty());
		await().pollDelay(Duration.ofMillis(500)).until(() -> true);
		assertThat(handler.ids).containsExactly("h-1");
		assertThat(other.ids).containsExactly("h-2");
		assertThat(one.meters.get("baton.queue.stale").tags("queue", "held", "operation", "extend").counter().count())
			.isGreaterThanOrEqualTo(1);
	}

	@Test
	void runningHandlerLearnsThatItLostItsTaskAndItsStaleAcknowledgementIsCounted(
			RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.EXTEND, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		Losing handler = new Losing();
		ListenerContext one = start(connectionFactory, faults, settings(Duration.ofSeconds(1), 0), handler);
		DelayQueue<Parcel> queue = one.queues.get("held", Parcel.class);
		queue.schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.started.getCount() == 0);
		Held other = new Held(Duration.ZERO);
		other.release.countDown();
		start(connectionFactory, new FaultyQueues(), settings(Duration.ofSeconds(1), 0), other);
		// its visibility ran out while the first handler still runs: the other instance ran it
		await().atMost(Duration.ofSeconds(10)).until(() -> other.ids.contains("h-1") && queue.find("h-1").isEmpty());
		assertThat(handler.lost).isEmpty();

		faults.fail(Call.EXTEND, 0, () -> new QueryTimeoutException("unused"));

		await().atMost(Duration.ofSeconds(5)).until(() -> handler.lost.contains("h-1"));
		assertThat(handler.extendedWhenLost).containsExactly(false);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> one.meters.find("baton.queue.stale").tags("operation", "ack").counter() != null);
		assertThat(one.meters.get("baton.queue.stale").tags("queue", "held", "operation", "ack").counter().count())
			.isEqualTo(1);
		assertThat(one.meters.get("baton.queue.stale").tags("queue", "held", "operation", "extend").counter().count())
			.isGreaterThanOrEqualTo(1);
	}

	@Test
	void acknowledgementRetriedPastTheVisibilityItCouldNotExtendIsDroppedAndCounted(
			RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.EXTEND, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		faults.fail(Call.ACKNOWLEDGE, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		Held handler = new Held(Duration.ZERO);
		handler.release.countDown();
		ListenerContext one = start(connectionFactory, faults, settings(Duration.ofSeconds(1), 0), handler);
		DelayQueue<Parcel> queue = one.queues.get("held", Parcel.class);
		queue.schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);

		// the handler is done, its acknowledgement fails and is retried until the visibility runs out
		await().atMost(Duration.ofSeconds(10))
			.until(() -> one.meters.find("baton.queue.stale").tags("operation", "ack-dropped").counter() != null);
		// never acknowledged: the task is delivered again (here, to the same instance), each run after
		// the first explained by one dropped acknowledgement
		faults.fail(Call.ACKNOWLEDGE, 0, () -> new QueryTimeoutException("unused"));
		faults.fail(Call.EXTEND, 0, () -> new QueryTimeoutException("unused"));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.find("h-1").isEmpty());
		double dropped = one.meters.get("baton.queue.stale")
			.tags("queue", "held", "operation", "ack-dropped")
			.counter()
			.count();
		assertThat(handler.ids).hasSizeGreaterThan(1).allMatch("h-1"::equals);
		assertThat(dropped).isEqualTo(handler.ids.size() - 1);
	}

	@Test
	void oneFailedExtensionIsRetriedBeforeTheTaskBecomesVisible(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		Held handler = new Held(Duration.ZERO);
		// extensions every second, each bounded by a second
		ListenerContext one = start(connectionFactory, faults, settings(Duration.ofSeconds(3), 0), handler);
		DelayQueue<Parcel> queue = one.queues.get("held", Parcel.class);
		queue.schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.ids.contains("h-1"));
		// an idle instance claims the task as soon as its visibility runs out
		Held other = new Held(Duration.ZERO);
		other.release.countDown();
		start(connectionFactory, new FaultyQueues(), settings(Duration.ofSeconds(3), 0), other);
		await().atMost(Duration.ofSeconds(5)).until(() -> faults.calls(Call.EXTEND) >= 1);

		// the next extension gets no answer: it fails after its bound, noticed a little late as under load
		faults.fail(Call.EXTEND, 1, () -> {
			sleep(Duration.ofMillis(1300));
			return new QueryTimeoutException("injected: no answer within the bound");
		});
		int calls = faults.calls(Call.EXTEND);
		await().atMost(Duration.ofSeconds(10)).until(() -> faults.calls(Call.EXTEND) >= calls + 3);
		handler.release.countDown();

		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("h-1").isEmpty());
		assertThat(other.ids).isEmpty();
		assertThat(handler.ids).containsExactly("h-1");
	}

	private ListenerContext start(RedisConnectionFactory connectionFactory, FaultyQueues faults,
			ListenerSettings settings, Object handler) {
		ListenerContext context = new ListenerContext(connectionFactory, faults::wrap, (queue) -> settings, handler);
		this.contexts.add(context);
		return context.start();
	}

	private static ListenerSettings settings(Duration visibilityTimeout, int prefetch) {
		return new ListenerSettings(5, SHORT_BACKOFF, visibilityTimeout, 32, prefetch, Duration.ofMillis(200),
				Duration.ofSeconds(2));
	}

	/** How long until the task's in-flight deadline, on the Redis clock. */
	private static long millisVisibleFor(StringRedisTemplate redis, String queue, String id) {
		return redis.execute(RedisScript.of("local t = redis.call('TIME') local d = redis.call('ZSCORE', KEYS[1], "
				+ "ARGV[1]) return tonumber(d) - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))",
				Long.class), List.of("baton:q:{" + queue + "}:inflight"), id);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Runs until it learns that its task is lost, then tries to extend it once more. */
	static class Losing {

		final CountDownLatch started = new CountDownLatch(1);

		final List<String> lost = new CopyOnWriteArrayList<>();

		final List<Boolean> extendedWhenLost = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "held")
		void handle(Parcel parcel, TaskContext context) throws InterruptedException {
			this.started.countDown();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (!context.isLost() && System.nanoTime() < end) {
				Thread.sleep(10);
			}
			if (context.isLost()) {
				this.extendedWhenLost.add(context.extendVisibility(Duration.ofSeconds(10)));
				this.lost.add(context.id());
			}
		}

	}

	/** Holds each task until released, keeping it invisible for {@code extendBy} itself if positive. */
	static class Held {

		final List<String> ids = new CopyOnWriteArrayList<>();

		final CountDownLatch release = new CountDownLatch(1);

		private final Duration extendBy;

		Held(Duration extendBy) {
			this.extendBy = extendBy;
		}

		@DelayedTask(queue = "held")
		void handle(Parcel parcel, TaskContext context) throws InterruptedException {
			this.ids.add(context.id());
			if (!this.extendBy.isZero()) {
				context.extendVisibility(this.extendBy);
			}
			this.release.await(20, TimeUnit.SECONDS);
		}

	}

}
