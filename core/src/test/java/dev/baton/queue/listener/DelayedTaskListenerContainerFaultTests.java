package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.FaultyQueues.Call;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The container under the faults production brings: errors thrown by the queue calls, failed
 * acknowledgements and hand-backs, claims that return late, and Redis going away while stopping.
 */
@RedisTest
class DelayedTaskListenerContainerFaultTests {

	private static final BackoffPolicy SHORT_BACKOFF = new BackoffPolicy(Duration.ofMillis(50), 2.0,
			Duration.ofMillis(200));

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void claimLoopSurvivesAnError(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.CLAIM, 1, () -> new OutOfMemoryError("injected"));
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(30)), handler);

		app.queues.get("recorded", Parcel.class).schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> handler.ids.contains("r-1"));
		assertThat(faults.calls(Call.CLAIM)).isGreaterThan(1);
	}

	@Test
	void acknowledgerSurvivesAnErrorAndAcknowledgesLater(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.ACKNOWLEDGE, 1, () -> new StackOverflowError("injected"));
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(30)), handler);
		DelayQueue<Parcel> queue = app.queues.get("recorded", Parcel.class);

		queue.schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.ids.contains("r-1"));
		queue.schedule("r-2", new Parcel("r-2", 2), Duration.ZERO);

		// both acknowledged long before the 30 s visibility timeout would bring them back
		await().atMost(Duration.ofSeconds(5))
			.until(() -> queue.stats().inFlight() == 0 && queue.find("r-1").isEmpty() && queue.find("r-2").isEmpty());
		assertThat(handler.ids).containsExactly("r-1", "r-2");
	}

	@Test
	void retriesFailedAcknowledgementInsteadOfRedelivering(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.ACKNOWLEDGE, 3, () -> new QueryTimeoutException("injected timeout"));
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(2)), handler);
		DelayQueue<Parcel> queue = app.queues.get("recorded", Parcel.class);

		queue.schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("r-1").isEmpty());
		assertThat(faults.calls(Call.ACKNOWLEDGE)).isEqualTo(4);
		// longer than the visibility timeout: the delivery was extended while its ack was retried
		await().pollDelay(Duration.ofMillis(2500)).until(() -> true);
		assertThat(handler.ids).containsExactly("r-1");
	}

	@Test
	void payloadThatFailsToReadWithAnyExceptionIsDeadLetteredAlone(RedisConnectionFactory connectionFactory) {
		FragileHandler handler = new FragileHandler();
		ListenerContext app = start(connectionFactory, new FaultyQueues(),
				settings(Duration.ofSeconds(30)), handler);
		DelayQueue<Fragile> queue = app.queues.get("fragile", Fragile.class);

		queue.schedule("bad-1", new Fragile("bad-1"), Duration.ZERO);
		queue.schedule("good-1", new Fragile("good-1"), Duration.ZERO);
		queue.schedule("good-2", new Fragile("good-2"), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> handler.ids.size() == 2 && queue.stats().inFlight() == 0);
		assertThat(handler.ids).containsExactlyInAnyOrder("good-1", "good-2");
		assertThat(queue.deadLetters(10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("bad-1");
			assertThat(dead.reason()).isEqualTo("Payload cannot be read as " + Fragile.class.getName()
					+ ": java.lang.IllegalArgumentException, caused by java.lang.IllegalStateException");
		});
	}

	@Test
	void interruptByStoppingIsNeverAFailedAttemptEvenWhenHandBackFails(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.HAND_BACK, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		InterruptedHandler handler = new InterruptedHandler();
		ListenerSettings settings = new ListenerSettings(5, SHORT_BACKOFF, Duration.ofSeconds(1), 32, 0,
				Duration.ofMillis(200), Duration.ofMillis(300));
		ListenerContext one = start(connectionFactory, faults, settings, handler);
		DelayQueue<Parcel> queue = one.queues.get("interrupted", Parcel.class);
		queue.schedule("i-1", new Parcel("i-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.getCount() == 0);

		one.registry().stop();
		await().atMost(Duration.ofSeconds(5)).untilTrue(handler.interrupted);

		// maxAttempts = 1 without dead letters: settling the interrupt as a failure deletes the task
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		assertThat(queue.find("i-1")).isPresent();
		assertThat(queue.deadLetters(10)).isEmpty();
		InterruptedQueueSuccessor successor = new InterruptedQueueSuccessor();
		start(connectionFactory, new FaultyQueues(), settings, successor);
		// it comes back when its visibility expires
		await().atMost(Duration.ofSeconds(10)).until(() -> successor.ids.contains("i-1"));
	}

	@Test
	void handsBackTasksOfAClaimThatReturnsAfterStopping(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		Recorder handler = new Recorder();
		ListenerSettings settings = new ListenerSettings(5, SHORT_BACKOFF, Duration.ofSeconds(60), 32, 0,
				Duration.ofMillis(200), Duration.ofMillis(300));
		ListenerContext app = start(connectionFactory, faults, settings, handler);
		DelayQueue<Parcel> queue = app.queues.get("recorded", Parcel.class);
		// the claim takes its task in Redis and returns only after the container gave up waiting for it
		faults.delayClaims(Duration.ofMillis(1300));
		queue.schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().inFlight() == 1);

		app.registry().stop();

		// handed back well before its 60 s visibility timeout
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().inFlight() == 0);
		assertThat(queue.peek(10)).singleElement().satisfies((task) -> assertThat(task.id()).isEqualTo("r-1"));
		assertThat(handler.ids).isEmpty();
	}

	@Test
	void stopTakesTheShutdownTimeoutPlusOneBoundedHandBackWhenRedisIsDown() throws Exception {
		RedisServer server = RedisServers.startLocal();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(20)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		InterruptedHandler handler = new InterruptedHandler();
		ListenerSettings settings = new ListenerSettings(5, SHORT_BACKOFF, Duration.ofSeconds(30), 32, 2,
				Duration.ofMillis(200), Duration.ofMillis(500));
		ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, handler).start();
		app.queues.get("interrupted", Parcel.class).schedule("i-1", new Parcel("i-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.getCount() == 0);
		server.close();
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);

		CountDownLatch stopped = new CountDownLatch(1);
		long start = System.nanoTime();
		app.registry().stop(stopped::countDown);
		long returnedAfter = System.nanoTime() - start;
		boolean done = stopped.await(10, TimeUnit.SECONDS);
		long stoppedAfter = System.nanoTime() - start;

		assertThat(returnedAfter).isLessThan(TimeUnit.MILLISECONDS.toNanos(200));
		assertThat(done).isTrue();
		// 500 ms shutdown timeout, one hand-back of at most 2 s, and some slack
		assertThat(stoppedAfter).isLessThan(TimeUnit.MILLISECONDS.toNanos(3500));
		assertThat(app.registry().isRunning()).isFalse();
		Thread closing = new Thread(() -> {
			app.close();
			connectionFactory.destroy();
		});
		closing.setDaemon(true);
		closing.start();
	}

	@Test
	void statusShowsALoopWhoseClaimsKeepFailingAsNotProgressing(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(30)), handler);
		DelayedTaskListenerRegistry registry = app.registry();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> registry.getStatus("recorded").map(DelayedTaskListenerStatus::lastClaim).isPresent());
		assertThat(registry.getStatus("recorded")).hasValueSatisfying((status) -> {
			assertThat(status.running()).isTrue();
			assertThat(status.progressing()).isTrue();
		});

		faults.fail(Call.CLAIM, Integer.MAX_VALUE, () -> new OutOfMemoryError("injected"));

		// 10 times the 200 ms idle poll of failing claims
		await().atMost(Duration.ofSeconds(5))
			.until(() -> !registry.getStatus("recorded").orElseThrow().progressing());
		assertThat(registry.getStatus("recorded").orElseThrow().running()).isTrue();
		faults.fail(Call.CLAIM, 0, () -> new OutOfMemoryError("unused"));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> registry.getStatus("recorded").orElseThrow().progressing());
		registry.stop();
		assertThat(registry.getStatuses()).isEmpty();
	}

	@Test
	void statusShowsAcknowledgementsThatKeepFailingAsNotProgressing(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(30)), handler);
		DelayedTaskListenerRegistry registry = app.registry();
		faults.fail(Call.ACKNOWLEDGE, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected"));

		app.queues.get("recorded", Parcel.class).schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);

		// 10 times the 200 ms idle poll
		await().atMost(Duration.ofSeconds(5)).until(() -> !registry.getStatus("recorded").orElseThrow().progressing());
		assertThat(handler.ids).containsExactly("r-1");
		faults.fail(Call.ACKNOWLEDGE, 0, () -> new QueryTimeoutException("unused"));
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.getStatus("recorded").orElseThrow().progressing());
	}

	@Test
	void statusShowsExtensionsThatKeepFailingAsNotProgressing(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		HangingHandler handler = new HangingHandler();
		// A prefetch leaves permits free while the one handler hangs: only the extensions fail.
		ListenerContext app = start(connectionFactory, faults, new ListenerSettings(5, SHORT_BACKOFF,
				Duration.ofSeconds(3), 32, 4, Duration.ofMillis(200), Duration.ofSeconds(2)), handler);
		DelayedTaskListenerRegistry registry = app.registry();
		faults.fail(Call.EXTEND, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected"));

		app.queues.get("hanging", Parcel.class).schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> !registry.getStatus("hanging").orElseThrow().progressing());
		assertThat(registry.getStatus("hanging").orElseThrow().running()).isTrue();
		faults.fail(Call.EXTEND, 0, () -> new QueryTimeoutException("unused"));
		handler.release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.getStatus("hanging").orElseThrow().progressing());
	}

	@Test
	void statusShowsAContainerThatFreesNoPermitAsNotProgressing(RedisConnectionFactory connectionFactory) {
		HangingHandler handler = new HangingHandler();
		ListenerContext app = start(connectionFactory, new FaultyQueues(), settings(Duration.ofSeconds(30)), handler);
		DelayedTaskListenerRegistry registry = app.registry();

		app.queues.get("hanging", Parcel.class).schedule("h-1", new Parcel("h-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> !registry.getStatus("hanging").orElseThrow().progressing());
		handler.release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.getStatus("hanging").orElseThrow().progressing());
	}

	@Test
	void latenessIsNotBiasedByASlowClaimReply(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues().delayClaims(Duration.ofMillis(400));
		Recorder handler = new Recorder();
		ListenerContext app = start(connectionFactory, faults, settings(Duration.ofSeconds(30)), handler);

		app.queues.get("recorded", Parcel.class).schedule("r-1", new Parcel("r-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> handler.ids.contains("r-1"));
		// the task really waited 400 ms in the slow reply; taking the reply's end as the server's
		// clock reading would cancel that out and report no lateness at all
		assertThat(app.meters.timer("baton.queue.lateness", "queue", "recorded").max(TimeUnit.MILLISECONDS))
			.isGreaterThan(150);
	}

	@Test
	void slowExtensionOfOneQueueDoesNotDelayAnothers(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues("stuck").delayExtensions(Duration.ofSeconds(3));
		SlowHandler slow = new SlowHandler();
		StuckHandler stuck = new StuckHandler();
		ListenerSettings settings = new ListenerSettings(5, SHORT_BACKOFF, Duration.ofSeconds(1), 32, 0,
				Duration.ofMillis(200), Duration.ofSeconds(2));
		ListenerContext one = start(connectionFactory, faults, settings, slow, stuck);
		one.queues.get("stuck", Parcel.class).schedule("x-1", new Parcel("x-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> stuck.started.get() == 1);
		DelayQueue<Parcel> queue = one.queues.get("slow", Parcel.class);
		queue.schedule("s-1", new Parcel("s-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> slow.started.get() == 1);
		// another instance would take the slow task if its visibility ran out
		SlowHandler other = new SlowHandler();
		start(connectionFactory, new FaultyQueues(), settings, other);

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.find("s-1").isEmpty());
		assertThat(slow.started.get()).isOne();
		assertThat(other.started.get()).isZero();
	}

	@Test
	void prefetchedDeliveryWhoseVisibilityRanOutIsDroppedNotRun(RedisConnectionFactory connectionFactory) {
		FaultyQueues faults = new FaultyQueues();
		faults.fail(Call.EXTEND, Integer.MAX_VALUE, () -> new QueryTimeoutException("injected timeout"));
		SelfExtendingHandler handler = new SelfExtendingHandler();
		ListenerSettings settings = new ListenerSettings(5, SHORT_BACKOFF, Duration.ofSeconds(1), 32, 1,
				Duration.ofMillis(200), Duration.ofSeconds(2));
		ListenerContext one = start(connectionFactory, faults, settings, handler);
		DelayQueue<Parcel> queue = one.queues.get("self-extending", Parcel.class);
		queue.schedule("s-1", new Parcel("s-1", 1), Duration.ZERO);
		queue.schedule("s-2", new Parcel("s-2", 2), Duration.ofMillis(50));
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().inFlight() == 2);
		SelfExtendingSuccessor other = new SelfExtendingSuccessor();
		start(connectionFactory, new FaultyQueues(), settings, other);

		// s-2 waits 1.5 s in the prefetch of the first instance, beyond its 1 s visibility: the
		// other instance takes it, and the first must not run its stale delivery as well
		await().atMost(Duration.ofSeconds(10))
			.until(() -> queue.find("s-2").isEmpty() && handler.finished.get() >= 1 && queue.stats().inFlight() == 0);
		await().pollDelay(Duration.ofMillis(500)).until(() -> true);
		assertThat(other.ids).containsExactly("s-2");
		assertThat(handler.ids).containsExactly("s-1");
	}

	@Test
	void retryIsLoggedAtWarnWithTaskQueueAndAttempt(RedisConnectionFactory connectionFactory) {
		Logger logger = (Logger) LoggerFactory.getLogger(DelayedTaskListenerContainer.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			FailsOnceHandler handler = new FailsOnceHandler();
			ListenerContext app = start(connectionFactory, new FaultyQueues(), settings(Duration.ofSeconds(30)),
					handler);

			app.queues.get("fails-once", Parcel.class).schedule("f-1", new Parcel("f-1", 1), Duration.ZERO);

			await().atMost(Duration.ofSeconds(5)).until(() -> handler.attempts.contains(2));
			assertThat(appender.list).anySatisfy((event) -> {
				assertThat(event.getLevel()).isEqualTo(Level.WARN);
				assertThat(event.getFormattedMessage()).contains("'f-1'", "'fails-once'", "attempt 1");
			});
		}
		finally {
			logger.detachAppender(appender);
		}
	}

	private ListenerContext start(RedisConnectionFactory connectionFactory, FaultyQueues faults,
			ListenerSettings settings, Object... handlers) {
		ListenerContext context = new ListenerContext(connectionFactory, faults::wrap, (queue) -> settings,
				handlers);
		this.contexts.add(context);
		return context.start();
	}

	private static ListenerSettings settings(Duration visibilityTimeout) {
		return new ListenerSettings(5, SHORT_BACKOFF, visibilityTimeout, 32, 0, Duration.ofMillis(200),
				Duration.ofSeconds(2));
	}

	static class Recorder {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "recorded")
		void handle(Parcel parcel, TaskContext context) {
			this.ids.add(context.id());
		}

	}

	static class FragileHandler {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "fragile")
		void handle(Fragile fragile) {
			this.ids.add(fragile.id());
		}

	}

	static class SlowHandler {

		final AtomicInteger started = new AtomicInteger();

		@DelayedTask(queue = "slow")
		void handle(Parcel parcel) throws InterruptedException {
			this.started.incrementAndGet();
			Thread.sleep(1500);
		}

	}

	/**
	 * Takes 1.5 s over s-1 and keeps it invisible itself, while the container's batch extension
	 * of the waiting task fails.
	 */
	static class SelfExtendingHandler {

		final List<String> ids = new CopyOnWriteArrayList<>();

		final AtomicInteger finished = new AtomicInteger();

		@DelayedTask(queue = "self-extending")
		void handle(Parcel parcel, TaskContext context) throws InterruptedException {
			this.ids.add(context.id());
			if (context.id().equals("s-1")) {
				context.extendVisibility(Duration.ofSeconds(5));
				Thread.sleep(1500);
			}
			this.finished.incrementAndGet();
		}

	}

	static class SelfExtendingSuccessor {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "self-extending")
		void handle(Parcel parcel, TaskContext context) {
			this.ids.add(context.id());
		}

	}

	static class StuckHandler {

		final AtomicInteger started = new AtomicInteger();

		@DelayedTask(queue = "stuck")
		void handle(Parcel parcel) throws InterruptedException {
			this.started.incrementAndGet();
			Thread.sleep(3000);
		}

	}

	/** Holds its one worker, and with it the only permit, until released. */
	static class HangingHandler {

		final CountDownLatch release = new CountDownLatch(1);

		@DelayedTask(queue = "hanging")
		void handle(Parcel parcel) throws InterruptedException {
			this.release.await(30, TimeUnit.SECONDS);
		}

	}

	static class FailsOnceHandler {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "fails-once")
		void handle(Parcel parcel, TaskContext context) {
			this.attempts.add(context.attempt());
			if (context.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}

	}

	static class InterruptedQueueSuccessor {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "interrupted")
		void handle(Parcel parcel, TaskContext context) {
			this.ids.add(context.id());
		}

	}

	/** Waits until interrupted, then fails as most handlers do when interrupted. */
	static class InterruptedHandler {

		final CountDownLatch started = new CountDownLatch(1);

		final AtomicBoolean interrupted = new AtomicBoolean();

		@DelayedTask(queue = "interrupted", maxAttempts = "1", deadLetter = false)
		void handle(Parcel parcel) throws InterruptedException {
			this.started.countDown();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				this.interrupted.set(true);
				throw ex;
			}
		}

	}

}
