package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.Backoff;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.support.CommandStats;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@RedisTest
class DelayedTaskListenerContainerTests {

	private static final BackoffPolicy SHORT_BACKOFF = new BackoffPolicy(Duration.ofMillis(50), 2.0,
			Duration.ofMillis(200));

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void handlerReceivesPayloadAndContext(RedisConnectionFactory connectionFactory) {
		RecordingHandler handler = new RecordingHandler();
		ListenerContext app = start(connectionFactory, defaults(), handler);

		app.queues.get("parcels", Parcel.class).schedule("p-1", new Parcel("p-1", 7), Duration.ofMillis(200));

		await().atMost(Duration.ofSeconds(10)).until(() -> handler.contexts.size() == 1);
		TaskContext context = handler.contexts.get(0);
		assertThat(handler.payloads).containsExactly(new Parcel("p-1", 7));
		assertThat(context.queue()).isEqualTo("parcels");
		assertThat(context.id()).isEqualTo("p-1");
		assertThat(context.attempt()).isEqualTo(1);
		assertThat(context.dueAt()).isAfter(context.scheduledAt());
		assertThat(handler.mdc.get(0)).containsEntry("baton.queue", "parcels")
			.containsEntry("baton.task.id", "p-1")
			.containsEntry("baton.task.attempt", "1");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(app.queues.get("parcels", Parcel.class).stats().inFlight()).isZero());
		assertThat(app.queues.get("parcels", Parcel.class).find("p-1")).isEmpty();
	}

	@Test
	void containersMakeTheirThreadsWithTheRegistrysThreadFactory(RedisConnectionFactory connectionFactory) {
		List<Thread> made = new CopyOnWriteArrayList<>();
		RecordingHandler handler = new RecordingHandler();
		Function<String, ListenerSettings> settings = (queue) -> defaults();
		UnaryOperator<DelayedTaskListenerRegistry.Builder> customizer = (registry) -> registry
			.threadFactory(recording(made));
		ListenerContext app = new ListenerContext(connectionFactory, settings, customizer, handler);
		this.contexts.add(app);
		app.start();

		app.queues.get("parcels", Parcel.class).schedule("p-1", new Parcel("p-1", 7), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.payloads.size() == 1);
		app.context.close();

		assertThat(made).extracting(Thread::getName)
			.contains("baton-queue-parcels", "baton-queue-parcels-1", "baton-ack-parcels", "baton-ack-retry-parcels",
					"baton-queue-visibility-parcels", "baton-queue-stop-parcels");
		assertThat(made).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		assertThat(handler.threads).containsOnly("baton-queue-parcels-1");
	}

	@Test
	void theRegistrysThreadFactoryWinsOverVirtualThreadsForHandlers(RedisConnectionFactory connectionFactory) {
		List<Thread> made = new CopyOnWriteArrayList<>();
		RecordingHandler handler = new RecordingHandler();
		Function<String, ListenerSettings> settings = (queue) -> defaults();
		UnaryOperator<DelayedTaskListenerRegistry.Builder> customizer = (registry) -> registry.virtualThreads(true)
			.threadFactory(recording(made));
		ListenerContext app = new ListenerContext(connectionFactory, settings, customizer, handler);
		this.contexts.add(app);
		app.start();

		app.queues.get("parcels", Parcel.class).schedule("p-1", new Parcel("p-1", 7), Duration.ZERO);
		app.queues.get("parcels", Parcel.class).schedule("p-2", new Parcel("p-2", 7), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.payloads.size() == 2);
		app.context.close();

		// A thread of the factory for each worker, numbered
		assertThat(handler.threads).allSatisfy((name) -> assertThat(name).startsWith("baton-queue-parcels-"));
		assertThat(made).extracting(Thread::getName).containsAll(handler.threads);
	}

	/** A thread factory that keeps every thread it makes in {@code made}. */
	private static ThreadFactory recording(List<Thread> made) {
		return (task) -> {
			Thread thread = new Thread(task);
			made.add(thread);
			return thread;
		};
	}

	@Test
	void runningTaskStaysAtLeastTwoThirdsOfItsVisibilityTimeoutAheadOfTheRedisClock(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		// So a forward step of the Redis clock smaller than two thirds of the timeout requeues nothing.
		SlowHandler handler = new SlowHandler(Duration.ofMillis(4500));
		ListenerContext app = start(connectionFactory, settings(Duration.ofSeconds(3), Duration.ofSeconds(1)), handler);
		app.queues.get("slow", Parcel.class).schedule("s-1", new Parcel("s-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.get() == 1);

		long smallestMargin = Long.MAX_VALUE;
		long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
		while (System.nanoTime() < end) {
			Long margin = redis.execute(RedisScript.of(
					"local t = redis.call('TIME') local d = redis.call('ZSCORE', KEYS[1], ARGV[1]) "
							+ "return tonumber(d) - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))",
					Long.class), List.of("baton:q:{slow}:inflight"), "s-1");
			smallestMargin = Math.min(smallestMargin, margin);
			sleepQuietly(50);
		}
		assertThat(smallestMargin).as("ms between the Redis clock and the visibility deadline").isGreaterThan(1700);
	}

	@Test
	void retriesWithBackoffThenDeadLetters(RedisConnectionFactory connectionFactory) {
		FailingHandler handler = new FailingHandler();
		ListenerContext app = start(connectionFactory, defaults(), handler);
		DelayQueue<Parcel> queue = app.queues.get("failing", Parcel.class);

		queue.schedule("f-1", new Parcel("f-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.deadLetters(10).size() == 1);
		DeadLetter<Parcel> dead = queue.deadLetters(10).get(0);
		assertThat(dead.id()).isEqualTo("f-1");
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.reason()).isEqualTo("java.lang.IllegalStateException");
		assertThat(handler.attempts).containsExactly(1, 2, 3);
		// backoff after attempt 1 is 50 ms, after attempt 2 is 100 ms
		assertThat(handler.startNanos.get(1) - handler.startNanos.get(0)).isGreaterThanOrEqualTo(msToNanos(50));
		assertThat(handler.startNanos.get(2) - handler.startNanos.get(1)).isGreaterThanOrEqualTo(msToNanos(100));
		assertThat(app.meters.get("baton.queue.handle")
			.tags("queue", "failing", "outcome", "retry", "error", "IllegalStateException")
			.timer()
			.count()).isEqualTo(2);
		assertThat(app.meters.get("baton.queue.handle").tags("queue", "failing", "outcome", "dead").timer().count())
			.isEqualTo(1);
	}

	@Test
	void deletesExhaustedTaskWhenDeadLetteringIsOff(RedisConnectionFactory connectionFactory) {
		NoDeadLetterHandler handler = new NoDeadLetterHandler();
		ListenerContext app = start(connectionFactory, defaults(), handler);
		DelayQueue<Parcel> queue = app.queues.get("discarding", Parcel.class);

		queue.schedule("d-1", new Parcel("d-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> handler.calls.get() == 1
				&& queue.stats().inFlight() == 0 && queue.find("d-1").isEmpty());
		assertThat(queue.deadLetters(10)).isEmpty();
	}

	@Test
	void poisonPayloadGoesToDeadLettersWithoutCallingHandler(RedisConnectionFactory connectionFactory) {
		RecordingHandler handler = new RecordingHandler();
		ListenerContext app = start(connectionFactory, defaults(), handler);
		// a String where a Parcel object is expected cannot be read
		app.queues.get("parcels", String.class).schedule("poison", "not a parcel", Duration.ZERO);
		app.queues.get("parcels", Parcel.class).schedule("good", new Parcel("good", 1), Duration.ZERO);

		DelayQueue<Parcel> queue = app.queues.get("parcels", Parcel.class);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> queue.deadLetters(10).size() == 1 && handler.payloads.size() == 1);
		assertThat(queue.deadLetters(10).get(0).id()).isEqualTo("poison");
		assertThat(queue.deadLetters(10).get(0).payload()).isNull();
		assertThat(handler.payloads).containsExactly(new Parcel("good", 1));
	}

	@Test
	void neverRunsMoreHandlersThanItsConcurrency(RedisConnectionFactory connectionFactory) {
		ConcurrentHandler handler = handleThirtyTasks(connectionFactory, defaults());

		assertThat(handler.maxRunning.get()).isEqualTo(3);
		// back-pressure: what is not running waits in Redis, never claimed ahead
		assertThat(handler.maxInFlightSeen.get()).isLessThanOrEqualTo(3);
	}

	@Test
	void prefetchClaimsAheadButRunsNoMoreHandlersThanItsConcurrency(RedisConnectionFactory connectionFactory) {
		ConcurrentHandler handler = handleThirtyTasks(connectionFactory,
				settings(Duration.ofSeconds(30), Duration.ofSeconds(1), 5, Duration.ofSeconds(5)));

		assertThat(handler.maxRunning.get()).isEqualTo(3);
		// 3 handlers and up to 5 claimed tasks waiting for them, never more
		assertThat(handler.maxInFlightSeen.get()).isBetween(4, 8);
	}

	private ConcurrentHandler handleThirtyTasks(RedisConnectionFactory connectionFactory, ListenerSettings settings) {
		ConcurrentHandler handler = new ConcurrentHandler();
		ListenerContext app = start(connectionFactory, settings, handler);
		DelayQueue<Parcel> queue = app.queues.get("concurrent", Parcel.class);
		handler.queue.set(queue);
		for (int i = 0; i < 30; i++) {
			queue.schedule("c-" + i, new Parcel("c-" + i, i), Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> handler.handled.size() == 30);
		return handler;
	}

	@Test
	void handsBackPrefetchedTasksAtOnceWhenStopping(RedisConnectionFactory connectionFactory) {
		SlowHandler slow = new SlowHandler(Duration.ofSeconds(2));
		SlowHandler successor = new SlowHandler(Duration.ZERO);
		ListenerSettings settings = settings(Duration.ofSeconds(60), Duration.ofSeconds(1), 3, Duration.ofSeconds(10));
		ListenerContext one = start(connectionFactory, settings, slow);
		DelayQueue<Parcel> queue = claimAllWithOneStarted(one, slow, 4);

		Thread stopping = new Thread(() -> one.registry().stop());
		stopping.start();
		start(connectionFactory, settings, successor);

		// the three waiting tasks move on while the running one still finishes where it started
		await().atMost(Duration.ofSeconds(10)).until(() -> successor.finished.get() == 3);
		assertThat(slow.finished.get()).isZero();
		await().atMost(Duration.ofSeconds(10)).until(() -> !stopping.isAlive());
		assertThat(slow.finished.get()).isOne();
		assertThat(slow.started.get() + successor.started.get()).isEqualTo(4);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().inFlight() == 0);
		assertThat(queue.peek(10)).isEmpty();
	}

	@Test
	void extendsVisibilityOfPrefetchedTasksWaitingLongerThanTheTimeout(RedisConnectionFactory connectionFactory) {
		SlowHandler first = new SlowHandler(Duration.ofMillis(1500));
		SlowHandler second = new SlowHandler(Duration.ZERO);
		ListenerSettings settings = settings(Duration.ofSeconds(1), Duration.ofMillis(200), 2, Duration.ofSeconds(5));
		claimAllWithOneStarted(start(connectionFactory, settings, first), first, 3);
		start(connectionFactory, settings, second);

		// the last task waits 3 s in the first instance, three times its visibility timeout
		await().atMost(Duration.ofSeconds(15)).until(() -> first.finished.get() == 3);
		assertThat(second.started.get()).isZero();
	}

	/** Schedules tasks on the slow queue and waits until they are all claimed and one started. */
	private static DelayQueue<Parcel> claimAllWithOneStarted(ListenerContext app, SlowHandler handler, int tasks) {
		DelayQueue<Parcel> queue = app.queues.get("slow", Parcel.class);
		for (int i = 1; i <= tasks; i++) {
			queue.schedule("s-" + i, new Parcel("s-" + i, i), Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> handler.started.get() == 1 && queue.stats().inFlight() == tasks);
		return queue;
	}

	@Test
	void extendsVisibilityOfHandlerSlowerThanItsTimeout(RedisConnectionFactory connectionFactory) {
		SlowHandler first = new SlowHandler(Duration.ofSeconds(3));
		SlowHandler second = new SlowHandler(Duration.ofSeconds(3));
		ListenerSettings settings = settings(Duration.ofSeconds(1), Duration.ofSeconds(1));
		ListenerContext one = start(connectionFactory, settings, first);
		DelayQueue<Parcel> queue = one.queues.get("slow", Parcel.class);
		queue.schedule("s-1", new Parcel("s-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> first.started.get() == 1);
		ListenerContext two = start(connectionFactory, settings, second);

		await().atMost(Duration.ofSeconds(15)).until(() -> first.finished.get() == 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().inFlight() == 0);
		assertThat(second.started.get()).isZero();
		assertThat(queue.find("s-1")).isEmpty();
		assertThat(two.registry().isRunning()).isTrue();
	}

	@Test
	void handsBackRunningTasksOnStop(RedisConnectionFactory connectionFactory) {
		BlockingHandler blocked = new BlockingHandler();
		SuccessorHandler successor = new SuccessorHandler();
		ListenerSettings settings = settings(Duration.ofSeconds(60), Duration.ofSeconds(1), 0, Duration.ofMillis(300));
		ListenerContext one = start(connectionFactory, settings, blocked);
		one.queues.get("blocking", Parcel.class).schedule("b-1", new Parcel("b-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> blocked.started.getCount() == 0);

		long stopStart = System.nanoTime();
		one.registry().stop();
		assertThat(System.nanoTime() - stopStart).isLessThan(TimeUnit.SECONDS.toNanos(10));
		await().atMost(Duration.ofSeconds(5)).untilTrue(blocked.interrupted);
		ListenerContext two = start(connectionFactory, settings, successor);

		// well before the 60 s visibility timeout
		await().atMost(Duration.ofSeconds(10)).until(() -> successor.contexts.size() == 1);
		assertThat(successor.contexts.get(0).id()).isEqualTo("b-1");
		assertThat(successor.contexts.get(0).attempt()).isEqualTo(1);
		assertThat(two.registry().isRunning()).isTrue();
	}

	@Test
	void waitsForRunningHandlersWithinShutdownTimeout(RedisConnectionFactory connectionFactory) {
		SlowHandler handler = new SlowHandler(Duration.ofMillis(500));
		ListenerContext app = start(connectionFactory, defaults(),
				handler);
		DelayQueue<Parcel> queue = app.queues.get("slow", Parcel.class);
		queue.schedule("s-1", new Parcel("s-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.get() == 1);

		app.registry().stop();

		assertThat(handler.finished.get()).isOne();
		assertThat(queue.find("s-1")).isEmpty();
	}

	@Test
	void recordsLatenessAndHandleTimers(RedisConnectionFactory connectionFactory) {
		RecordingHandler handler = new RecordingHandler();
		ListenerContext app = start(connectionFactory, defaults(), handler);

		app.queues.get("parcels", Parcel.class).schedule(new Parcel("m", 1), Duration.ofMillis(100));

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
				app.meters.timer("baton.queue.handle", "queue", "parcels", "outcome", "success", "error", "none").count())
			.isOne());
		assertThat(app.meters.timer("baton.queue.lateness", "queue", "parcels").count()).isOne();
	}

	@Test
	void wakesUpForTaskScheduledAheadOfWaitingOnes(RedisConnectionFactory connectionFactory) {
		RecordingHandler handler = new RecordingHandler();
		// a long idle poll: only the wake-up can bring the early task in time
		ListenerContext app = start(connectionFactory, settings(Duration.ofSeconds(30), Duration.ofSeconds(30)),
				handler);
		DelayQueue<Parcel> queue = app.queues.get("parcels", Parcel.class);
		queue.schedule("late", new Parcel("late", 1), Duration.ofMinutes(10));
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);

		queue.schedule("early", new Parcel("early", 1), Duration.ofMillis(200));

		await().atMost(Duration.ofSeconds(10)).until(() -> handler.payloads.size() == 1);
		assertThat(handler.contexts.get(0).id()).isEqualTo("early");
	}

	@Test
	void idleQueueCostsAboutOneClaimPerMaxIdlePoll(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		start(connectionFactory, settings(Duration.ofSeconds(30), Duration.ofMillis(500)), new RecordingHandler());
		await().pollDelay(Duration.ofMillis(500)).until(() -> true);

		long before = CommandStats.calls(redis, "eval", "evalsha");
		await().pollDelay(Duration.ofSeconds(3)).until(() -> true);
		long calls = CommandStats.calls(redis, "eval", "evalsha") - before;

		// 3 s at one claim per 500 ms is 6; a loop with short sleeps would make hundreds
		assertThat(calls).isBetween(3L, 9L);
	}

	private ListenerContext start(RedisConnectionFactory connectionFactory, ListenerSettings settings,
			Object... handlers) {
		ListenerContext context = new ListenerContext(connectionFactory, (queue) -> settings, handlers);
		this.contexts.add(context);
		return context.start();
	}

	private static ListenerSettings defaults() {
		return settings(Duration.ofSeconds(30), Duration.ofSeconds(1));
	}

	private static ListenerSettings settings(Duration visibilityTimeout, Duration maxIdlePoll) {
		return settings(visibilityTimeout, maxIdlePoll, 0, Duration.ofSeconds(5));
	}

	private static ListenerSettings settings(Duration visibilityTimeout, Duration maxIdlePoll, int prefetch,
			Duration shutdownTimeout) {
		return new ListenerSettings(5, SHORT_BACKOFF, visibilityTimeout, 32, prefetch, maxIdlePoll, shutdownTimeout);
	}

	private static long msToNanos(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static class RecordingHandler {

		final List<Parcel> payloads = new CopyOnWriteArrayList<>();

		final List<TaskContext> contexts = new CopyOnWriteArrayList<>();

		final List<Map<String, String>> mdc = new CopyOnWriteArrayList<>();

		/** The names of the threads the handler ran on. */
		final List<String> threads = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "parcels")
		void handle(Parcel parcel, TaskContext context) {
			this.threads.add(Thread.currentThread().getName());
			this.mdc.add(org.slf4j.MDC.getCopyOfContextMap());
			this.contexts.add(context);
			this.payloads.add(parcel);
		}

	}

	static class SuccessorHandler {

		final List<TaskContext> contexts = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "blocking")
		void handle(Parcel parcel, TaskContext context) {
			this.contexts.add(context);
		}

	}

	static class FailingHandler {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		final List<Long> startNanos = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "failing", maxAttempts = "3", backoff = @Backoff(initial = "50ms", multiplier = "2"))
		void handle(TaskContext context, Parcel parcel) {
			this.startNanos.add(System.nanoTime());
			this.attempts.add(context.attempt());
			throw new IllegalStateException("broken on attempt " + context.attempt());
		}

	}

	static class NoDeadLetterHandler {

		final AtomicInteger calls = new AtomicInteger();

		@DelayedTask(queue = "discarding", maxAttempts = "1", deadLetter = false)
		void handle(Parcel parcel) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("always");
		}

	}

	static class ConcurrentHandler {

		final Map<String, Boolean> handled = new ConcurrentHashMap<>();

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger maxRunning = new AtomicInteger();

		final AtomicInteger maxInFlightSeen = new AtomicInteger();

		final AtomicReference<DelayQueue<Parcel>> queue = new AtomicReference<>();

		@DelayedTask(queue = "concurrent", concurrency = "${missing.concurrency:3}")
		void handle(Parcel parcel, TaskContext context) throws InterruptedException {
			int now = this.running.incrementAndGet();
			this.maxRunning.accumulateAndGet(now, Math::max);
			DelayQueue<Parcel> queue = this.queue.get();
			if (queue != null) {
				this.maxInFlightSeen.accumulateAndGet((int) queue.stats().inFlight(), Math::max);
			}
			Thread.sleep(50);
			this.handled.put(context.id(), true);
			this.running.decrementAndGet();
		}

	}

	static class SlowHandler {

		final AtomicInteger started = new AtomicInteger();

		final AtomicInteger finished = new AtomicInteger();

		private final Duration duration;

		SlowHandler(Duration duration) {
			this.duration = duration;
		}

		@DelayedTask(queue = "slow")
		void handle(Parcel parcel) throws InterruptedException {
			this.started.incrementAndGet();
			Thread.sleep(this.duration.toMillis());
			this.finished.incrementAndGet();
		}

	}

	static class BlockingHandler {

		final CountDownLatch started = new CountDownLatch(1);

		final AtomicBoolean interrupted = new AtomicBoolean();

		@DelayedTask(queue = "blocking")
		void handle(Parcel parcel) {
			this.started.countDown();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				this.interrupted.set(true);
			}
		}

	}

}
