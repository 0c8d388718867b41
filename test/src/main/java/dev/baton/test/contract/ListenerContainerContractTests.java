package dev.baton.test.contract;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.BackoffPolicy;
import dev.baton.queue.listener.DefaultDelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskEndpoint;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.listener.TaskFailure;
import dev.baton.test.queue.QueueClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Baton's {@code @DelayedTask} listener container promises when nothing fails (see
 * {@code docs/guarantees.md}), on the queues of an implementation of {@link DelayQueues}: extend it
 * to check queues of your own, as Baton checks its Redis queues and
 * {@link dev.baton.test.queue.InMemoryDelayQueues}. The queues must implement
 * {@link dev.baton.queue.spi.ConsumableQueue}, and {@link dev.baton.queue.spi.AdvanceableQueue}
 * unless {@link #advance} is overridden.
 *
 * <pre class="code">
 * class MyListenerContainerContractTests extends ListenerContainerContractTests {
 *
 *     &#64;Override
 *     protected DelayQueues createDelayQueues() {
 *         return new MyDelayQueues(sharedStore);
 *     }
 *
 * }
 * </pre>
 *
 * <p>Covered, through a {@link DelayedTaskListenerRegistry} with a handler registered as a
 * {@link DelayedTaskEndpoint}: a due task is handled once per successful attempt; a handler that
 * throws is retried up to the configured attempts and then dead-lettered, or deleted when
 * dead-lettering is off; a {@link DelayedTaskErrorHandler} with a not-retryable exception type
 * dead-letters at once; a handler that throws an {@link Error} does not stop the container; tasks
 * run no earlier than due and in due order with a concurrency of 1; stopping waits for a running
 * handler and hands the claimed tasks that did not start back, to be handled after a restart; and
 * {@link TaskContext} gives the task's queue, id, attempt and due time.
 *
 * <p>Not covered: anything that needs a fault (a crashed instance, redelivery after the
 * visibility timeout, a store that does not answer), several consuming instances, and the timing
 * of retries. Tasks fall due in real time, a second at most, or through {@link #advance}.
 *
 * <p>Queue names are unique per test, so tests need not empty the store. Every wait is bounded;
 * the suite takes a few seconds.
 */
public abstract class ListenerContainerContractTests {

	/** The longest wait for something the container should do at once. */
	private static final Duration WAIT = Duration.ofSeconds(10);

	/** How long a negative check looks: that a handler does not run, that stopping still waits. */
	private static final Duration QUIET = Duration.ofMillis(300);

	/** Attempts of every queue of the suite. */
	private static final int MAX_ATTEMPTS = 3;

	/**
	 * The settings of every queue: 3 attempts, retries after 10 to 40 ms, 16 tasks claimed ahead
	 * whatever the handler's speed, an idle poll of half a second (tasks should come sooner, on a
	 * wake-up), and up to 5 s for running handlers when stopping.
	 */
	private static final ListenerSettings SETTINGS = new ListenerSettings(MAX_ATTEMPTS,
			new BackoffPolicy(Duration.ofMillis(10), 2.0, Duration.ofMillis(40)), Duration.ofSeconds(30), 16, 16,
			Duration.ofMillis(500), Duration.ofSeconds(5));

	private static final Method HANDLE;

	static {
		try {
			HANDLE = Handler.class.getDeclaredMethod("handle", String.class, TaskContext.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private final List<DelayedTaskListenerRegistry> registries = new ArrayList<>();

	private final List<DelayQueues> created = new ArrayList<>();

	private String run = "";

	/**
	 * A new instance of the application's queues. The suite calls it once per test, consumes its
	 * queues with Baton's container, and closes it after the test with
	 * {@link #closeDelayQueues}, once the container has stopped.
	 * @return the queues
	 */
	protected abstract DelayQueues createDelayQueues();

	/**
	 * Closes queues made by {@link #createDelayQueues()}, after the containers that consumed them
	 * stopped. The default closes them if they are {@link AutoCloseable}.
	 * @param queues the queues
	 * @throws Exception if closing fails
	 */
	protected void closeDelayQueues(DelayQueues queues) throws Exception {
		if (queues instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

	/**
	 * Makes the waiting tasks of a queue fall due {@code by} earlier, as if its clock had jumped.
	 * The default is {@link QueueClock#advance}.
	 * @param queue the queue
	 * @param by how far
	 */
	protected void advance(DelayQueue<?> queue, Duration by) {
		QueueClock.advance(queue, by);
	}

	/**
	 * How far the store's clock, which decides when a task is due and records when it was
	 * scheduled, may differ from this JVM's. The default, zero, suits a store on this host.
	 * @return the largest difference
	 */
	protected Duration clockTolerance() {
		return Duration.ZERO;
	}

	@BeforeEach
	void newRun() {
		this.run = UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void stopContainers() throws Exception {
		this.registries.forEach(DelayedTaskListenerRegistry::stop);
		this.registries.clear();
		for (DelayQueues queues : this.created) {
			closeDelayQueues(queues);
		}
		this.created.clear();
	}

	@Test
	void everyDueTaskIsHandledOnceOnItsFirstAttempt() {
		DelayQueue<String> orders = queue("orders");
		for (int i = 0; i < 10; i++) {
			orders.schedule("before-" + i, "ok", Duration.ZERO);
		}
		Handler handler = start(orders, 4, true, new DefaultDelayedTaskErrorHandler());
		for (int i = 0; i < 10; i++) {
			orders.schedule("after-" + i, "ok", Duration.ofMillis(10L * i));
		}

		await("20 tasks handled", () -> handler.runs.size() >= 20);
		await("every task acknowledged", () -> isEmpty(orders));
		assertThat(handler.runs).as("each once").hasSize(20);
		assertThat(handler.ids()).hasSize(20);
		assertThat(handler.runs).allSatisfy((run) -> assertThat(run.attempt()).isOne());
		assertThat(orders.find("before-0")).isEmpty();
		assertThat(orders.schedule("before-0", "ok", Duration.ofHours(1))).as("done: the id is free").isTrue();
	}

	@Test
	void aFailingTaskIsRetriedUpToItsAttemptsThenDeadLettered() {
		DelayQueue<String> invoices = queue("invoices");
		Handler handler = start(invoices, 1, true, new DefaultDelayedTaskErrorHandler());
		invoices.schedule("broken", "fail", Duration.ZERO);
		invoices.schedule("flaky", "fail-once", Duration.ZERO);

		await("the broken task dead-lettered", () -> invoices.stats().dead() == 1);
		await("the flaky task handled", () -> handler.succeeded("flaky"));
		assertThat(handler.attempts("broken")).containsExactly(1, 2, 3);
		DeadLetter<String> dead = invoices.deadLetters(10).get(0);
		assertThat(dead.id()).isEqualTo("broken");
		assertThat(dead.attempts()).isEqualTo(MAX_ATTEMPTS);
		assertThat(dead.payload()).isEqualTo("fail");
		assertThat(dead.reason()).isEqualTo(IllegalStateException.class.getName());
		assertThat(handler.attempts("flaky")).as("retried once, then handled").containsExactly(1, 2);
		await("nothing left but the dead letter", () -> isEmpty(invoices));
		assertThat(invoices.find("broken")).isEmpty();
		assertThat(invoices.stats().dead()).isOne();
	}

	@Test
	void aFailingTaskIsDeletedAfterItsAttemptsWhenDeadLetteringIsOff() {
		DelayQueue<String> emails = queue("emails");
		Handler handler = start(emails, 1, false, new DefaultDelayedTaskErrorHandler());
		emails.schedule("broken", "fail", Duration.ZERO);
		emails.schedule("after", "ok", Duration.ofMillis(100));

		await("every attempt made", () -> handler.attempts("broken").size() == MAX_ATTEMPTS);
		await("the broken task deleted", () -> isEmpty(emails) && emails.find("broken").isEmpty());
		await("the next task handled", () -> handler.succeeded("after"));
		assertThat(handler.attempts("broken")).containsExactly(1, 2, 3);
		assertThat(emails.stats().dead()).isZero();
		assertThat(emails.deadLetters(10)).isEmpty();
	}

	@Test
	void aNotRetryableExceptionIsDeadLetteredAtOnce() {
		DelayQueue<String> orders = queue("orders");
		DefaultDelayedTaskErrorHandler retrying = new DefaultDelayedTaskErrorHandler()
			.addNotRetryableExceptions(IllegalArgumentException.class);
		List<TaskFailure> failures = new CopyOnWriteArrayList<>();
		Handler handler = start(orders, 1, true, (failure) -> {
			failures.add(failure);
			return retrying.handle(failure);
		});
		orders.schedule("invalid", "not-retryable", Duration.ZERO);
		orders.schedule("broken", "fail", Duration.ofMillis(50));

		await("both dead-lettered", () -> orders.stats().dead() == 2);
		assertThat(handler.attempts("invalid")).as("given up on at once").containsExactly(1);
		assertThat(handler.attempts("broken")).as("retried").containsExactly(1, 2, 3);
		assertThat(orders.deadLetters(10)).filteredOn((dead) -> dead.id().equals("invalid"))
			.singleElement()
			.satisfies((dead) -> assertThat(dead.attempts()).isOne());
		assertThat(failures).filteredOn((failure) -> failure.taskId().equals("invalid"))
			.singleElement()
			.satisfies((failure) -> {
				assertThat(failure.queue()).isEqualTo(orders.name());
				assertThat(failure.attempt()).isOne();
				assertThat(failure.exception()).hasRootCauseInstanceOf(IllegalArgumentException.class);
			});
		assertThat(failures).filteredOn((failure) -> failure.taskId().equals("broken"))
			.extracting(TaskFailure::attempt)
			.containsExactly(1, 2, 3);
	}

	@Test
	void aHandlerThatThrowsAnErrorDoesNotStopTheContainer() {
		DelayQueue<String> invoices = queue("invoices");
		Handler handler = start(invoices, 1, true, new DefaultDelayedTaskErrorHandler());
		Instant now = Instant.now();
		invoices.scheduleAt("error", "error", now.minusSeconds(2));
		invoices.scheduleAt("next", "ok", now.minusSeconds(1));

		await("the task after the error handled", () -> handler.succeeded("next"));
		assertThat(handler.attempts("error")).startsWith(1);
		invoices.schedule("later", "ok", Duration.ZERO);
		await("a task scheduled afterwards handled", () -> handler.succeeded("later"));
		await("the error settled as a failure", () -> invoices.stats().dead() == 1);
		assertThat(invoices.deadLetters(1).get(0).reason()).isEqualTo(HandlerError.class.getName());
		assertThat(handler.attempts("error")).containsExactly(1, 2, 3);
		assertThat(registry().getStatus(invoices.name())).hasValueSatisfying(
				(status) -> assertThat(status.running()).as("the container still runs").isTrue());
	}

	@Test
	void tasksRunNoEarlierThanDueAndInDueOrderWithConcurrencyOne() {
		DelayQueue<String> emails = queue("emails");
		Handler handler = start(emails, 1, true, new DefaultDelayedTaskErrorHandler());
		Instant base = Instant.now().plusMillis(300).truncatedTo(ChronoUnit.MILLIS);
		int[] order = { 4, 1, 5, 0, 3, 2 };
		for (int i : order) {
			emails.scheduleAt("task-" + i, "ok", base.plusMillis(100L * i));
		}
		emails.schedule("in-an-hour", "ok", Duration.ofHours(1));

		await("the 6 tasks handled", () -> handler.runs.size() >= 6);
		assertThat(handler.runs).extracting(Run::id)
			.containsExactly("task-0", "task-1", "task-2", "task-3", "task-4", "task-5");
		assertThat(handler.runs).allSatisfy((run) -> {
			assertThat(run.dueAt()).isEqualTo(base.plusMillis(100L * Integer.parseInt(run.id().substring(5))));
			assertThat(run.startedAt()).as("not before it is due").isAfterOrEqualTo(run.dueAt().minus(clockTolerance()));
		});

		advance(emails, Duration.ofMinutes(59));
		stays("the task due in a minute not handled", () -> !handler.ran("in-an-hour"));
		advance(emails, Duration.ofMinutes(1));
		await("the task handled once due", () -> handler.succeeded("in-an-hour"));
		assertThat(handler.runs).hasSize(7);
	}

	@Test
	void stoppingWaitsForARunningHandlerAndHandsBackTheTasksItDidNotStart() throws Exception {
		DelayQueue<String> orders = queue("orders");
		Instant now = Instant.now();
		orders.scheduleAt("running", "block", now.minusSeconds(5));
		for (int i = 0; i < 4; i++) {
			orders.scheduleAt("waiting-" + i, "ok", now.minusSeconds(4 - i));
		}
		Handler handler = start(orders, 1, true, new DefaultDelayedTaskErrorHandler());
		await("the first task running", () -> handler.ran("running"));
		await("all 5 claimed", () -> orders.stats().inFlight() == 5);

		DelayedTaskListenerRegistry registry = registry();
		Thread stopping = new Thread(registry::stop, "contract-stop");
		stopping.start();
		await("the 4 tasks not started handed back", () -> orders.stats().due() == 4 && orders.stats().inFlight() == 1);
		stays("stopping waits for the running handler", stopping::isAlive);
		assertThat(handler.runs).extracting(Run::id).containsExactly("running");
		handler.release.countDown();
		stopping.join(WAIT.toMillis());
		assertThat(stopping.isAlive()).as("stopped once the handler returned").isFalse();
		assertThat(orders.find("running")).as("the running task was acknowledged").isEmpty();
		assertThat(orders.stats().due()).isEqualTo(4);
		assertThat(orders.stats().inFlight()).isZero();

		registry.start();
		await("the 4 tasks handled after a restart", () -> handler.runs.size() >= 5);
		assertThat(handler.runs).extracting(Run::id)
			.containsExactly("running", "waiting-0", "waiting-1", "waiting-2", "waiting-3");
		assertThat(handler.runs).allSatisfy(
				(run) -> assertThat(run.attempt()).as("a hand-back does not count as an attempt").isOne());
		await("every task acknowledged", () -> isEmpty(orders));
	}

	@Test
	void theTaskContextGivesTheQueueIdAttemptAndDueTime() {
		DelayQueue<String> invoices = queue("invoices");
		Handler handler = start(invoices, 1, true, new DefaultDelayedTaskErrorHandler());
		Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		Instant dueAt = before.plusMillis(200);
		invoices.scheduleAt("invoice-7", "fail-once", dueAt);
		Instant after = Instant.now();

		await("handled on the second attempt", () -> handler.succeeded("invoice-7"));
		assertThat(handler.runs).hasSize(2);
		Run first = handler.runs.get(0);
		Run second = handler.runs.get(1);
		assertThat(first.queue()).isEqualTo(invoices.name());
		assertThat(first.id()).isEqualTo("invoice-7");
		assertThat(first.attempt()).isOne();
		assertThat(first.dueAt()).isEqualTo(dueAt);
		assertThat(first.scheduledAt()).isBetween(before.minus(clockTolerance()), after.plus(clockTolerance()));
		assertThat(second.queue()).isEqualTo(invoices.name());
		assertThat(second.id()).isEqualTo("invoice-7");
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.dueAt()).as("the retry's due time").isAfter(dueAt);
		assertThat(second.startedAt()).isAfterOrEqualTo(second.dueAt().minus(clockTolerance()));
	}

	/** A queue of this test only, named {@code base-run}, on a new instance of the queues. */
	private DelayQueue<String> queue(String base) {
		DelayQueues queues = createDelayQueues();
		this.created.add(queues);
		return queues.get(base + "-" + this.run, String.class);
	}

	/**
	 * Starts a registry that consumes the queue with a new {@link Handler}, on the instance of the
	 * queues the test made last.
	 */
	private Handler start(DelayQueue<String> queue, int concurrency, boolean deadLetter,
			DelayedTaskErrorHandler errorHandler) {
		Handler handler = new Handler();
		DelayedTaskListenerRegistry registry = DelayedTaskListenerRegistry
			.builder(this.created.get(this.created.size() - 1))
			.settings((name) -> SETTINGS)
			.errorHandler(errorHandler)
			.build();
		registry.register(new DelayedTaskEndpoint(queue.name(), handler, HANDLE, String.class, concurrency, null, null,
				null, null, null, deadLetter));
		this.registries.add(registry);
		registry.start();
		return handler;
	}

	private DelayedTaskListenerRegistry registry() {
		return this.registries.get(this.registries.size() - 1);
	}

	private static boolean isEmpty(DelayQueue<?> queue) {
		var stats = queue.stats();
		return stats.scheduled() + stats.due() + stats.inFlight() == 0;
	}

	/** Waits up to {@link #WAIT} for the condition, looking every few milliseconds. */
	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Not within " + WAIT.toMillis() + " ms: " + what);
			}
			pause();
		}
	}

	/** Checks that the condition holds throughout {@link #QUIET}. */
	private static void stays(String what, BooleanSupplier condition) {
		long end = System.nanoTime() + QUIET.toNanos();
		while (System.nanoTime() - end < 0) {
			if (!condition.getAsBoolean()) {
				throw new AssertionError("Did not hold for " + QUIET.toMillis() + " ms: " + what);
			}
			pause();
		}
	}

	private static void pause() {
		try {
			TimeUnit.MILLISECONDS.sleep(5);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted", ex);
		}
	}

	/**
	 * One run of a handler, as it saw its task.
	 * @param queue the queue
	 * @param id the task id
	 * @param attempt the attempt
	 * @param dueAt when the task fell due
	 * @param scheduledAt when it was scheduled
	 * @param startedAt when the handler started, on this JVM's clock
	 */
	record Run(String queue, String id, int attempt, Instant dueAt, Instant scheduledAt, Instant startedAt) {

	}

	/** An error of the handler's own, as an {@link OutOfMemoryError} or an assertion would be. */
	static final class HandlerError extends Error {

		HandlerError(String message) {
			super(message);
		}

	}

	/**
	 * The handler of every test, whose payload says what it does: {@code ok} returns,
	 * {@code fail} throws, {@code fail-once} throws on the first attempt only,
	 * {@code not-retryable} throws an exception caused by an {@link IllegalArgumentException},
	 * {@code error} throws an {@link Error} and {@code block} waits for {@link #release}.
	 */
	static final class Handler {

		/** Every run, as it started. */
		final List<Run> runs = new CopyOnWriteArrayList<>();

		/** The runs that returned normally. */
		final List<Run> succeeded = new CopyOnWriteArrayList<>();

		final CountDownLatch release = new CountDownLatch(1);

		void handle(String payload, TaskContext task) throws Exception {
			Run run = new Run(task.queue(), task.id(), task.attempt(), task.dueAt(), task.scheduledAt(), Instant.now());
			this.runs.add(run);
			switch (payload) {
				case "ok" -> {
				}
				case "fail" -> throw new IllegalStateException("broken task");
				case "fail-once" -> {
					if (task.attempt() == 1) {
						throw new IllegalStateException("failed once");
					}
				}
				case "not-retryable" -> throw new IllegalStateException("invalid task",
						new IllegalArgumentException("bad input"));
				case "error" -> throw new HandlerError("handler error");
				case "block" -> {
					if (!this.release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
						throw new IllegalStateException("not released");
					}
				}
				default -> throw new IllegalArgumentException("Unknown payload " + payload);
			}
			this.succeeded.add(run);
		}

		List<Integer> attempts(String id) {
			return this.runs.stream().filter((run) -> run.id().equals(id)).map(Run::attempt).toList();
		}

		boolean ran(String id) {
			return this.runs.stream().anyMatch((run) -> run.id().equals(id));
		}

		boolean succeeded(String id) {
			return this.succeeded.stream().anyMatch((run) -> run.id().equals(id));
		}

		Set<String> ids() {
			return this.runs.stream().map(Run::id).collect(Collectors.toSet());
		}

	}

}
