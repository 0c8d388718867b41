package dev.baton.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.Delivery;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.spi.ConsumableQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a delayed task that holds a lock promises when nothing fails
 * ({@link DelayQueue#schedule(String, Object, Duration, LockLease)}, see
 * {@code docs/delayed-tasks.md}): extend it to check delay queues and a lock manager of your own
 * that work together, as Baton checks its Redis queues with its Redis lock manager, and
 * {@link dev.baton.test.queue.InMemoryDelayQueues} with
 * {@link dev.baton.test.lock.InMemoryLockManager}. The queues must implement
 * {@link ConsumableQueue}, so that the suite can claim with a short visibility timeout.
 *
 * <pre class="code">
 * class MyTaskHeldLockContractTests extends TaskHeldLockContractTests {
 *
 *     &#64;Override
 *     protected LockManager createLockManager(Duration leaseTime) {
 *         return new MyLockManager(sharedStore, leaseTime);
 *     }
 *
 *     &#64;Override
 *     protected DelayQueues createDelayQueues(LockManager lockManager) {
 *         return new MyDelayQueues(sharedStore, lockManager);
 *     }
 *
 * }
 * </pre>
 *
 * <p>Covered: scheduling hands the lease over (the caller's lease is invalid from then on) and the
 * task keeps the lock while it waits, past the lease it had; a taken id schedules nothing and
 * leaves the lease with the caller, renewed as before; bad input or a lease already released
 * schedules nothing; a delivery gives the lock with the same fencing token
 * ({@link Delivery#lease()}) and {@code find} names it ({@link ScheduledTask#lock()});
 * acknowledging releases the lock; a retry keeps it through its backoff and a dead letter releases
 * it; cancelling releases it and rescheduling keeps it until the new due time; visibility
 * extensions keep it while a handler runs; a redelivery after a consumer died keeps it, and the
 * dead consumer's late acknowledgement releases nothing.
 *
 * <p>Not covered: anything that needs a fault (a lock lost while the task waits, a store that
 * loses everything or does not answer), lock-lost events, and the listener container. Leases are
 * 400 ms, so that a lock kept only for its lease would run out within a test;
 * time passes through {@link #passTime}, about a second per test at most.
 *
 * <p>Queue and lock names are unique per test, so tests need not empty the store. Lock managers
 * and queues that are {@link AutoCloseable} are closed after each test.
 */
public abstract class TaskHeldLockContractTests {

	/** The lease time of every lock manager of the suite. */
	private static final Duration LEASE = Duration.ofMillis(400);

	/** The longest wait for a task that is due now to be claimed: the store may be a little slow. */
	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<Object> created = new ArrayList<>();

	private String run = "";

	private LockManager locks;

	private LockManager otherInstance;

	private DelayQueue<String> queue;

	/**
	 * A new instance of the application's lock manager, over the same locks as every other one
	 * created in the same test. The suite calls it twice per test: for the instance that schedules
	 * and consumes the tasks, and for another one that tries to take their locks.
	 * @param leaseTime how long a lock taken without a lease time of its own stays held once
	 * nothing renews it (Baton's {@code baton.lock.lease-time}): the lease a task keeps its lock
	 * for beyond what it waits for
	 * @return the lock manager
	 */
	protected abstract LockManager createLockManager(Duration leaseTime);

	/**
	 * A new instance of the application's queues, whose tasks hold the locks of the given lock
	 * manager, over the same tasks as every other instance created in the same test. The suite
	 * calls it once per test.
	 * @param lockManager a lock manager that {@link #createLockManager} returned
	 * @return the queues
	 */
	protected abstract DelayQueues createDelayQueues(LockManager lockManager);

	/**
	 * Let {@code duration} pass for the leases and the tasks of this test. The default sleeps, for
	 * implementations on a real clock; one on a clock that the test moves moves that clock (for both
	 * the locks and the queues) instead.
	 * @param duration how much time passes
	 * @throws InterruptedException if interrupted while sleeping
	 */
	protected void passTime(Duration duration) throws InterruptedException {
		TimeUnit.NANOSECONDS.sleep(duration.toNanos());
	}

	@BeforeEach
	void newInstances() {
		this.run = UUID.randomUUID().toString().substring(0, 8);
		this.locks = created(createLockManager(LEASE));
		this.otherInstance = created(createLockManager(LEASE));
		this.queue = created(createDelayQueues(this.locks)).get("exports-" + this.run, String.class);
	}

	@AfterEach
	void closeInstances() throws Exception {
		// The queues first: they were created last.
		for (int i = this.created.size() - 1; i >= 0; i--) {
			if (this.created.get(i) instanceof AutoCloseable closeable) {
				closeable.close();
			}
		}
		this.created.clear();
	}

	@Test
	void theTaskHoldsTheLockWhileItWaitsAndTheCallersLeaseIsInvalid() throws Exception {
		LockLease lease = acquire("1");

		assertThat(this.queue.schedule("export-1", "1", LEASE.multipliedBy(3), lease)).isTrue();

		assertThat(lease.isValid()).as("handed over to the task").isFalse();
		assertThat(isFree("1")).isFalse();
		passTime(LEASE.multipliedBy(2));
		assertThat(isFree("1")).as("kept past its lease while the task waits").isFalse();
		assertThat(this.queue.find("export-1")).isPresent();
	}

	@Test
	void findNamesTheLockOfATaskAndADeliveryGivesItWithTheSameFencingToken() {
		LockLease lease = acquire("2");
		long fencingToken = lease.fencingToken();
		String id = this.queue.schedule("2", Duration.ZERO, lease);

		assertThat(this.queue.find(id)).get().extracting(ScheduledTask::lock).isEqualTo(lock("2"));
		Delivery<String> delivery = poll();
		assertThat(delivery.id()).isEqualTo(id);
		LockLease held = delivery.lease().orElseThrow();
		assertThat(held.isValid()).isTrue();
		assertThat(held.name()).isEqualTo(lock("2"));
		assertThat(held.fencingToken()).isEqualTo(fencingToken);
		assertThat(this.queue.find(id)).get().extracting(ScheduledTask::lock).as("in flight").isEqualTo(lock("2"));
	}

	@Test
	void acknowledgingTheTaskReleasesItsLock() {
		LockLease lease = acquire("3");
		this.queue.schedule("export-3", "3", Duration.ZERO, lease);
		Delivery<String> delivery = poll();
		LockLease held = delivery.lease().orElseThrow();
		assertThat(isFree("3")).isFalse();

		assertThat(delivery.ack()).isTrue();

		assertThat(held.isValid()).isFalse();
		assertThat(isFree("3")).isTrue();
	}

	@Test
	void aTakenIdSchedulesNothingAndLeavesTheLeaseWithTheCaller() throws Exception {
		this.queue.schedule("export-4", "without a lock", Duration.ofMinutes(5));
		LockLease lease = acquire("4");
		long fencingToken = lease.fencingToken();

		assertThat(this.queue.schedule("export-4", "4", Duration.ofMinutes(5), lease)).isFalse();

		assertThat(lease.isValid()).isTrue();
		assertThat(this.queue.find("export-4")).get().satisfies((task) -> {
			assertThat(task.payload()).isEqualTo("without a lock");
			assertThat(task.lock()).isNull();
		});
		passTime(LEASE.multipliedBy(2));
		assertThat(lease.isValid()).as("renewed as before, past its lease").isTrue();
		assertThat(lease.fencingToken()).isEqualTo(fencingToken);
		assertThat(isFree("4")).isFalse();
		lease.release();
		assertThat(isFree("4")).isTrue();
	}

	@Test
	void badInputOrAReleasedLeaseSchedulesNothingAndHandsNothingOver() {
		LockLease lease = acquire("5");

		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule(" ", "5", Duration.ZERO, lease));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("export-5", "5", Duration.ofSeconds(-1), lease));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("export-5", null, Duration.ZERO, lease));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("export-5", "5", Duration.ZERO, null));
		assertThat(lease.isValid()).isTrue();
		assertThat(isFree("5")).isFalse();
		lease.release();

		assertThatExceptionOfType(LeaseLostException.class)
			.isThrownBy(() -> this.queue.schedule("export-5", "5", Duration.ZERO, lease));
		assertThat(this.queue.find("export-5")).isEmpty();
		assertThat(isFree("5")).isTrue();
	}

	@Test
	void aRetryKeepsTheLockThroughItsBackoffAndADeadLetterReleasesIt() throws Exception {
		LockLease lease = acquire("6");
		this.queue.schedule("export-6", "6", Duration.ZERO, lease);
		// Its claim keeps the lock for the visibility timeout plus the lease: 1.5 leases.
		Delivery<String> first = claim(LEASE.dividedBy(2));

		assertThat(first.retry(LEASE.multipliedBy(2))).isTrue();

		assertThat(first.lease().orElseThrow().isValid()).as("this delivery no longer holds the task").isFalse();
		passTime(LEASE.multipliedBy(7).dividedBy(4));
		assertThat(isFree("6")).as("kept through the backoff").isFalse();
		passTime(LEASE.dividedBy(2));
		Delivery<String> second = poll();
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.lease().orElseThrow().isValid()).isTrue();

		assertThat(second.deadLetter("failed twice")).isTrue();

		assertThat(second.lease().orElseThrow().isValid()).isFalse();
		assertThat(isFree("6")).isTrue();
	}

	@Test
	void cancellingReleasesTheLock() {
		LockLease lease = acquire("7");
		this.queue.schedule("export-7", "7", Duration.ofMinutes(5), lease);

		assertThat(this.queue.cancel("export-7")).isTrue();

		assertThat(isFree("7")).isTrue();
	}

	@Test
	void reschedulingKeepsTheLockUntilTheNewDueTime() throws Exception {
		LockLease lease = acquire("8");
		this.queue.schedule("export-8", "8", Duration.ZERO, lease);

		assertThat(this.queue.reschedule("export-8", LEASE.multipliedBy(3))).isTrue();

		passTime(LEASE.multipliedBy(2));
		assertThat(isFree("8")).as("kept past the lease it had").isFalse();
	}

	@Test
	void visibilityExtensionsKeepTheLockWhileTheHandlerRuns() throws Exception {
		LockLease lease = acquire("9");
		this.queue.schedule("export-9", "9", Duration.ZERO, lease);
		Duration visibility = LEASE.dividedBy(2);
		Delivery<String> delivery = claim(visibility);

		// What the container does while the handler runs, a third of the timeout apart, for 2.5 leases.
		for (int i = 0; i < 15; i++) {
			passTime(visibility.dividedBy(3));
			if (i % 2 == 0) {
				assertThat(consumable().extendVisibility(List.of(delivery), visibility)).isEmpty();
			}
			else {
				assertThat(delivery.extendVisibility(visibility)).isTrue();
			}
		}

		assertThat(isFree("9")).as("kept past the lease it had").isFalse();
		assertThat(delivery.lease().orElseThrow().isValid()).isTrue();
		assertThat(delivery.ack()).isTrue();
		assertThat(isFree("9")).isTrue();
	}

	@Test
	void aRedeliveryAfterADeadConsumerKeepsTheLockAndTheStaleAcknowledgementReleasesNothing() throws Exception {
		LockLease lease = acquire("10");
		this.queue.schedule("export-10", "10", Duration.ZERO, lease);
		Duration visibility = LEASE.dividedBy(2);
		// Its claim keeps the lock for 1.5 leases; then its consumer is gone, and nothing extends it.
		Delivery<String> dead = claim(visibility);

		passTime(visibility.plus(LEASE.dividedBy(4)));
		Delivery<String> redelivery = poll();

		assertThat(redelivery.attempt()).isEqualTo(2);
		assertThat(redelivery.lease().orElseThrow().isValid()).isTrue();
		assertThat(dead.ack()).as("stale").isFalse();
		assertThat(dead.lease().orElseThrow().isValid()).isFalse();
		assertThat(isFree("10")).as("kept for the redelivery").isFalse();
		assertThat(redelivery.ack()).isTrue();
		assertThat(isFree("10")).isTrue();
	}

	private <T> T created(T instance) {
		this.created.add(instance);
		return instance;
	}

	/** The name of a lock of this test. */
	private String lock(String base) {
		return "export-" + this.run + ":" + base;
	}

	/** The lock taken by the scheduling instance, renewed by its watchdog. */
	private LockLease acquire(String base) {
		return this.locks.tryAcquire(lock(base), Duration.ZERO)
			.orElseThrow(() -> new AssertionError("Lock " + lock(base) + " is taken"));
	}

	/** Whether another instance can take the lock now; if it can, it releases it at once. */
	private boolean isFree(String base) {
		Optional<LockLease> taken = this.otherInstance.tryAcquire(lock(base), Duration.ZERO);
		taken.ifPresent(LockLease::release);
		return taken.isPresent();
	}

	/** One delivery with the queue's own visibility timeout, waiting up to {@link #WAIT} for the store. */
	private Delivery<String> poll() {
		return firstOf(() -> this.queue.poll(1));
	}

	/** One delivery that stays invisible to other consumers for {@code visibility}. */
	private Delivery<String> claim(Duration visibility) {
		return firstOf(() -> consumable().claim(1, visibility).deliveries());
	}

	@SuppressWarnings("unchecked")
	private ConsumableQueue<String> consumable() {
		if (!(this.queue instanceof ConsumableQueue<?> consumable)) {
			throw new IllegalStateException(this.queue + " is not a " + ConsumableQueue.class.getName());
		}
		return (ConsumableQueue<String>) consumable;
	}

	/** The first delivery that {@code claim} returns, asking every few milliseconds up to {@link #WAIT}. */
	private static Delivery<String> firstOf(Supplier<List<Delivery<String>>> claim) {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (true) {
			List<Delivery<String>> deliveries = claim.get();
			if (!deliveries.isEmpty()) {
				return deliveries.get(0);
			}
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("No task was claimed within " + WAIT.toMillis() + " ms");
			}
			try {
				TimeUnit.MILLISECONDS.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted", ex);
			}
		}
	}

}
