package dev.baton.test.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.Backoff;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.test.lock.InMemoryLockManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.awaitility.core.ConditionFactory;

import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What {@link InMemoryDelayQueuesContractTests} does not cover: Baton's listener container on the
 * in-memory queues, on a clock the tests move, and redelivery, hand-back and payloads that do not
 * go through JSON; and for tasks that hold a lock, the container, hand-back, dead letters of
 * unreadable payloads and redrive.
 */
class InMemoryDelayQueuesTests {

	private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T08:00:00Z"));

	private final InMemoryDelayQueues queues = new InMemoryDelayQueues(this.now::get);

	private final Handlers handlers = new Handlers();

	private final InMemoryLockManager locks = new InMemoryLockManager(this.now::get);

	private GenericApplicationContext context;

	@AfterEach
	void closeContext() {
		if (this.context != null) {
			this.context.close();
		}
	}

	/** A plain Spring context whose {@code @DelayedTask} handlers consume the in-memory queues. */
	private void startHandlers() {
		this.context = new GenericApplicationContext();
		this.context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		this.context.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(this.queues).build());
		this.context.registerBean(Handlers.class, () -> this.handlers);
		this.context.refresh();
	}

	/** Waits up to two seconds, looking every few milliseconds: Awaitility's default looks every 100. */
	private static ConditionFactory soon() {
		return await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
	}

	private void passTime(Duration duration) {
		this.now.updateAndGet((instant) -> instant.plus(duration));
	}

	@Test
	void aHandlerRunsTheTaskOnceTheClockReachesItsDueTime() {
		startHandlers();
		DelayQueue<Reminder> reminders = this.queues.get("reminders", Reminder.class);
		reminders.schedule("r-1", new Reminder(1, "renew"), Duration.ofMinutes(30));
		Instant dueAt = this.now.get().plus(Duration.ofMinutes(30));

		passTime(Duration.ofMinutes(29));
		this.queues.wakeConsumers();
		assertThat(reminders.stats().scheduled()).as("not due yet").isEqualTo(1);

		passTime(Duration.ofMinutes(1));
		this.queues.wakeConsumers();
		soon().until(() -> this.handlers.reminders.size() == 1);
		assertThat(this.handlers.reminders.peek()).isEqualTo(new Reminder(1, "renew"));
		assertThat(this.handlers.reminderDueAt.get()).isEqualTo(dueAt);
		soon().until(() -> reminders.stats().inFlight() == 0);
		assertThat(reminders.find("r-1")).as("acknowledged").isEmpty();
	}

	@Test
	void aFailingHandlerIsRetriedAfterItsBackoffThenDeadLettered() {
		startHandlers();
		DelayQueue<String> invoices = this.queues.get("invoices", String.class);
		invoices.schedule("broken", "fail", Duration.ZERO);

		for (int attempt = 1; attempt < 3; attempt++) {
			int failures = attempt;
			soon().until(() -> this.handlers.failures.get() == failures
					&& invoices.stats().scheduled() == 1);
			assertThat(this.queues.advance(Duration.ofSeconds(59))).as("the backoff is a minute").isZero();
			assertThat(this.queues.advance(Duration.ofSeconds(1))).isEqualTo(1);
		}

		soon().until(() -> invoices.stats().dead() == 1);
		assertThat(this.handlers.failures).hasValue(3);
		DeadLetter<String> dead = invoices.deadLetters(10).get(0);
		assertThat(dead.id()).isEqualTo("broken");
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.reason()).isEqualTo(IllegalStateException.class.getName());
		assertThat(dead.payload()).isEqualTo("fail");

		assertThat(invoices.redrive("broken")).isTrue();
		soon().until(() -> this.handlers.failures.get() == 4);
	}

	@Test
	void aDeliveryWhoseVisibilityRanOutIsDeliveredAgainAndCanNoLongerSettleTheTask() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		orders.schedule("order-1", "ok", Duration.ZERO);
		Delivery<String> crashed = orders.poll(1).get(0);
		DelayQueue<String> otherInstance = this.queues.anotherInstance().get("orders", String.class);

		passTime(InMemoryDelayQueues.DEFAULT_VISIBILITY_TIMEOUT.minusMillis(1));
		assertThat(otherInstance.poll(1)).as("still invisible").isEmpty();
		passTime(Duration.ofMillis(1));
		Delivery<String> again = otherInstance.poll(1).get(0);

		assertThat(again.id()).isEqualTo("order-1");
		assertThat(again.attempt()).isEqualTo(2);
		assertThat(crashed.extendVisibility(Duration.ofMinutes(1))).isFalse();
		assertThat(crashed.ack()).as("stale").isFalse();
		assertThat(again.ack()).isTrue();
		assertThat(orders.find("order-1")).isEmpty();
	}

	@Test
	void aHandedBackTaskIsDueAgainWithoutCountingTheAttempt() {
		InMemoryDelayQueue<String> orders = (InMemoryDelayQueue<String>) this.queues.get("orders", String.class);
		orders.schedule("first", "a", Duration.ZERO);
		orders.schedule("second", "b", Duration.ZERO);
		List<Delivery<String>> claimed = orders.claim(1, Duration.ofMinutes(1)).deliveries();

		orders.handBack(claimed);

		List<Delivery<String>> again = orders.poll(2);
		assertThat(again).extracting(Delivery::id).containsExactly("first", "second");
		assertThat(again.get(0).attempt()).isEqualTo(1);
		assertThat(orders.acknowledge(claimed)).as("the handed-back delivery is stale").containsExactlyElementsOf(claimed);
	}

	@Test
	void aClaimSaysWhenTheNextTaskFallsDueOnTheQueuesClock() {
		InMemoryDelayQueue<String> orders = (InMemoryDelayQueue<String>) this.queues.get("orders", String.class);
		assertThat(orders.claim(10, Duration.ofMinutes(1)).nextDueIn()).isNull();
		orders.schedule("later", "a", Duration.ofMinutes(10));

		ConsumableQueue.Claim<String> claim = orders.claim(10, Duration.ofMinutes(1));

		assertThat(claim.deliveries()).isEmpty();
		assertThat(claim.nextDueIn()).isEqualTo(Duration.ofMinutes(10));
		assertThat(claim.serverTime()).isEqualTo(this.now.get());
	}

	@Test
	void tasksDueAtTheSameTimeComeInTheOrderTheyWereLinedUp() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		Instant dueAt = this.now.get().plus(Duration.ofMinutes(5));
		orders.scheduleAt("b", "ok", dueAt);
		orders.scheduleAt("a", "ok", dueAt);
		orders.scheduleAt("c", "ok", dueAt);
		orders.schedule("moved", "ok", Duration.ofHours(1));
		assertThat(orders.reschedule("moved", Duration.ofMinutes(5))).isTrue();
		assertThat(orders.reschedule("b", Duration.ofMinutes(5))).as("to the end of the line").isTrue();

		assertThat(QueueClock.advance(orders, Duration.ofMinutes(5))).as("QueueClock moves it too").isEqualTo(4);
		assertThat(orders.poll(10)).extracting(Delivery::id).containsExactly("a", "c", "moved", "b");
	}

	@Test
	void aPayloadThatCannotBeWrittenAsJsonIsRefused() {
		DelayQueue<Unwritable> queue = this.queues.get("unwritable", Unwritable.class);

		assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("bad", new Unwritable(), Duration.ZERO))
			.withMessageContaining("cannot be written as JSON");
		assertThat(queue.find("bad")).isEmpty();
	}

	@Test
	void aPayloadThatCannotBeReadIsDeadLetteredWhenClaimed() {
		this.queues.get("mixed", String.class).schedule("text", "not a reminder", Duration.ZERO);
		DelayQueue<Reminder> reminders = this.queues.get("mixed", Reminder.class);

		assertThat(reminders.find("text").orElseThrow().unreadablePayload()).isEqualTo("\"not a reminder\"");
		assertThat(reminders.poll(10)).isEmpty();
		DeadLetter<Reminder> dead = reminders.deadLetters(1).get(0);
		assertThat(dead.payload()).isNull();
		assertThat(dead.unreadablePayload()).isEqualTo("\"not a reminder\"");
		assertThat(dead.reason()).startsWith("Payload cannot be read as " + Reminder.class.getName());
		assertThat(reminders.purgeDeadLetter("text")).isTrue();
		assertThat(reminders.stats().dead()).isZero();
	}

	@Test
	void aHandlerReadsTheLockOfItsTaskFromItsContextAndItsEndReleasesIt() {
		this.queues.lockManager(this.locks);
		startHandlers();
		LockLease lease = this.locks.tryAcquire("export:1", Duration.ZERO).orElseThrow();
		long fencingToken = lease.fencingToken();

		this.queues.get("exports", String.class).schedule("export-1", "1", Duration.ZERO, lease);

		soon().until(() -> this.handlers.exportTokens.size() == 1);
		assertThat(this.handlers.exportTokens).containsExactly(fencingToken);
		soon().until(() -> this.locks.anotherInstance().tryAcquire("export:1", Duration.ZERO).isPresent());
	}

	@Test
	void queuesWithoutALockManagerRefuseTasksThatHoldALock() {
		LockLease lease = this.locks.tryAcquire("export:2", Duration.ZERO).orElseThrow();

		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.queues.get("exports", String.class).schedule("export-2", "2", Duration.ZERO, lease));
		assertThat(lease.isValid()).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> this.queues.lockManager(new LockManager() {

			@Override
			public RedisLock getLock(String name, String group) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Optional<LockLease> tryAcquire(LockRequest request) {
				return Optional.empty();
			}

		}));
	}

	@Test
	void aHandedBackTaskKeepsItsLockAndAnotherInstanceSharesTheLockManager() {
		this.queues.lockManager(this.locks);
		InMemoryDelayQueue<String> exports = (InMemoryDelayQueue<String>) this.queues.anotherInstance()
			.get("exports", String.class);
		exports.schedule("export-3", "3", Duration.ZERO, this.locks.tryAcquire("export:3", Duration.ZERO).orElseThrow());
		List<Delivery<String>> claimed = exports.claim(1, Duration.ofSeconds(1)).deliveries();

		exports.handBack(claimed);

		assertThat(claimed.get(0).lease().orElseThrow().isValid()).as("no longer this delivery's").isFalse();
		passTime(Duration.ofSeconds(20));
		assertThat(this.locks.anotherInstance().tryAcquire("export:3", Duration.ZERO)).isEmpty();
		Delivery<String> again = exports.poll(1).get(0);
		assertThat(again.lease().orElseThrow().isValid()).isTrue();
		assertThat(again.ack()).isTrue();
		assertThat(this.locks.anotherInstance().tryAcquire("export:3", Duration.ZERO)).isPresent();
	}

	@Test
	void anUnreadableTaskReleasesItsLockWhenDeadLetteredAndRunsWithoutOneOnceRedriven() {
		this.queues.lockManager(this.locks);
		this.queues.get("mixed", String.class)
			.schedule("text", "not a reminder", Duration.ZERO, this.locks.tryAcquire("mixed:1", Duration.ZERO).orElseThrow());
		DelayQueue<Reminder> reminders = this.queues.get("mixed", Reminder.class);
		assertThat(reminders.find("text").orElseThrow().lock()).isEqualTo("mixed:1");

		assertThat(reminders.poll(10)).isEmpty();

		assertThat(this.locks.anotherInstance().tryAcquire("mixed:1", Duration.ZERO)).isPresent();
		DelayQueue<String> texts = this.queues.get("mixed", String.class);
		assertThat(texts.redrive("text")).isTrue();
		assertThat(texts.find("text").orElseThrow().lock()).isNull();
		assertThat(texts.poll(1).get(0).lease()).isEmpty();
	}

	record Reminder(long id, String text) {

	}

	static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("cannot be read");
		}

	}

	static class Handlers {

		final Queue<Reminder> reminders = new ConcurrentLinkedQueue<>();

		final AtomicReference<Instant> reminderDueAt = new AtomicReference<>();

		final AtomicInteger failures = new AtomicInteger();

		final Queue<Long> exportTokens = new ConcurrentLinkedQueue<>();

		@DelayedTask(queue = "exports")
		void export(String payload, TaskContext task) {
			LockLease lease = task.lease().orElseThrow();
			if (lease.isValid()) {
				this.exportTokens.add(lease.fencingToken());
			}
		}

		@DelayedTask(queue = "reminders")
		void remind(Reminder reminder, TaskContext task) {
			this.reminderDueAt.set(task.dueAt());
			this.reminders.add(reminder);
		}

		@DelayedTask(queue = "invoices", maxAttempts = "3", backoff = @Backoff(initial = "1m", max = "1m"))
		void invoice(String payload) {
			this.failures.incrementAndGet();
			throw new IllegalStateException("broken task");
		}

	}

}
