package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claiming ahead by time, not by count: a container claims beyond its concurrency only as many
 * tasks as its measured handler time says it starts within the claim-ahead time, so a slow
 * instance does not hoard tasks that a fast one would run at once.
 */
@RedisTest
class ClaimAheadTests {

	private static final int TASKS = 1_000;

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void fastInstanceGetsTheLargerShareAndTheSlowOneHoardsNothing(RedisConnectionFactory connectionFactory) {
		FastHandler fast = new FastHandler();
		SlowHandler slow = new SlowHandler();
		// Each instance measures its handler alone first: started together, the idle fast one can
		// claim every warm-up task, and the slow one would never measure its handler
		ListenerContext slowInstance = start(connectionFactory, slow);
		DelayQueue<Parcel> queue = slowInstance.queues.get("work", Parcel.class);
		queue.schedule("warm-up-slow", new Parcel("warm-up-slow", 0), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> slow.handled.get() == 1);
		start(connectionFactory, fast);
		queue.schedule("warm-up-fast", new Parcel("warm-up-fast", 0), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> fast.handled.get() + slow.handled.get() == 2);

		queue.scheduleAll(IntStream.range(0, TASKS)
			.mapToObj((i) -> new NewTask<>("t-" + i, new Parcel("t-" + i, i), Duration.ZERO))
			.toList());

		// With a fixed prefetch of 1,000, the slow instance would take hundreds of tasks and need
		// minutes for them; claiming by time, the fast one runs nearly all at once
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().due() == 0 && queue.stats().inFlight() <= 4);
		assertThat(slow.handled.get()).isLessThan(60);
		assertThat(fast.handled.get()).isGreaterThan(TASKS - 60);
	}

	@Test
	void fastHandlersClaimMoreThanTheirConcurrencyPerRoundTrip(RedisConnectionFactory connectionFactory) {
		FastHandler fast = new FastHandler();
		ListenerContext instance = start(connectionFactory, fast);
		DelayQueue<Parcel> queue = instance.queues.get("work", Parcel.class);
		queue.schedule("warm-up", new Parcel("warm-up", 0), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> fast.handled.get() == 1);

		queue.scheduleAll(IntStream.range(0, TASKS)
			.mapToObj((i) -> new NewTask<>("t-" + i, new Parcel("t-" + i, i), Duration.ZERO))
			.toList());

		AtomicInteger mostInFlight = new AtomicInteger();
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> {
			mostInFlight.accumulateAndGet((int) queue.stats().inFlight(), Math::max);
			return fast.handled.get() == TASKS + 1;
		});
		// Without claim-ahead, two handlers hold at most two tasks: one claim per task or two
		assertThat(mostInFlight.get()).isGreaterThan(2);
	}

	@Test
	void anInstanceWhoseHandlersSlowDownGivesBackWhatItCannotStartSoon(RedisConnectionFactory connectionFactory) {
		WarmHandler warm = new WarmHandler();
		ListenerContext warmInstance = start(connectionFactory, warm);
		DelayQueue<Parcel> queue = warmInstance.queues.get("work", Parcel.class);
		// Fast at first: the measured handler time lets it claim hundreds of tasks ahead
		queue.scheduleAll(IntStream.range(0, 50)
			.mapToObj((i) -> new NewTask<>("warm-" + i, new Parcel("warm-" + i, i), Duration.ZERO))
			.toList());
		await().atMost(Duration.ofSeconds(5)).until(() -> warm.handled.get() == 50);
		warm.pause = Duration.ofMillis(100);
		queue.scheduleAll(IntStream.range(0, 200)
			.mapToObj((i) -> new NewTask<>("t-" + i, new Parcel("t-" + i, i), Duration.ZERO))
			.toList());
		// One slow run ended: the warm instance claimed all it wanted meanwhile
		await().atMost(Duration.ofSeconds(5)).until(() -> warm.handled.get() > 50);

		// A new instance with eight idle workers: the warm one needs ten seconds for what it holds
		NewcomerHandler newcomer = new NewcomerHandler();
		start(connectionFactory, newcomer);

		await().atMost(Duration.ofSeconds(30)).until(() -> warm.handled.get() + newcomer.handled.get() == 250);
		// Its share of the workers is four fifths, about 160 of the 200; hoarding left it at most 94
		assertThat(newcomer.handled.get()).isGreaterThan(125);
	}

	private ListenerContext start(RedisConnectionFactory connectionFactory, Object handler) {
		ListenerSettings settings = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(),
				Duration.ofSeconds(30), 32, 1_000, Duration.ofMillis(100), Duration.ofSeconds(1),
				Duration.ofSeconds(2));
		ListenerContext context = new ListenerContext(connectionFactory, (queue) -> settings, handler);
		this.contexts.add(context);
		return context.start();
	}

	static class FastHandler {

		final AtomicInteger handled = new AtomicInteger();

		@DelayedTask(queue = "work", concurrency = "2")
		void handle(Parcel parcel) {
			this.handled.incrementAndGet();
		}

	}

	/** Two workers whose handler becomes slow once {@link #pause} is set. */
	static class WarmHandler {

		final AtomicInteger handled = new AtomicInteger();

		volatile Duration pause = Duration.ZERO;

		@DelayedTask(queue = "work", concurrency = "2")
		void handle(Parcel parcel) throws InterruptedException {
			Thread.sleep(this.pause.toMillis());
			this.handled.incrementAndGet();
		}

	}

	static class NewcomerHandler {

		final AtomicInteger handled = new AtomicInteger();

		@DelayedTask(queue = "work", concurrency = "8")
		void handle(Parcel parcel) throws InterruptedException {
			Thread.sleep(100);
			this.handled.incrementAndGet();
		}

	}

	static class SlowHandler {

		final AtomicInteger handled = new AtomicInteger();

		@DelayedTask(queue = "work", concurrency = "2")
		void handle(Parcel parcel) throws InterruptedException {
			this.handled.incrementAndGet();
			Thread.sleep(100);
		}

	}

}
