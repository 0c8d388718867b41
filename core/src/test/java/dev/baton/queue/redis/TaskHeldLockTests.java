package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.Delivery;
import dev.baton.queue.ScheduledTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A lock held for a task until it ends ({@code DelayQueue.schedule(..., LockLease)}): kept while
 * the task waits, while a delivery holds it and across retries and redeliveries, released when it
 * ends for good, and its loss reported, never re-created. Two lock managers stand for the
 * scheduling instance and another instance that wants the lock meanwhile.
 */
@RedisTest
class TaskHeldLockTests {

	/** Short, so that a lock that were only kept for its lease would run out within a test. */
	private static final Duration LEASE = Duration.ofMillis(400);

	private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

	private RedisLockManager locks;

	private RedisLockManager otherInstance;

	private RedisDelayQueues queues;

	private RedisDelayQueue<Order> queue;

	private StringRedisTemplate redis;

	@BeforeEach
	@SuppressWarnings("unchecked")
	void setUp(RedisConnectionFactory connectionFactory) {
		this.locks = RedisLockManager.builder(connectionFactory)
			.leaseTime(LEASE)
			.lockLostListener(this.lost::add)
			.instanceName("web-1")
			.build();
		this.otherInstance = RedisLockManager.builder(connectionFactory).instanceName("web-2").build();
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.lockManager(this.locks)
			.build();
		this.queue = (RedisDelayQueue<Order>) this.queues.get("orders", Order.class);
		this.redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterEach
	void close() {
		this.queues.close();
		this.otherInstance.close();
		this.locks.close();
	}

	@Test
	void theTaskHoldsTheLockWhileItWaitsAndReleasesItWhenAcknowledged() {
		LockLease lease = this.locks.tryAcquire("export:1", Duration.ZERO).orElseThrow();
		long fencingToken = lease.fencingToken();

		assertThat(this.queue.schedule("export-1", new Order("1", 1), Duration.ofMillis(1500), lease)).isTrue();

		assertThat(lease.isValid()).as("handed over to the task").isFalse();
		assertThat(this.locks.heldCount()).isZero();
		assertThat(this.queue.find("export-1")).get().extracting(ScheduledTask::lock).isEqualTo("export:1");
		// Longer than the lease: the lock was kept for the task's delay plus its lease.
		await().pollDelay(Duration.ofMillis(900)).until(() -> true);
		assertThat(this.otherInstance.tryAcquire("export:1", Duration.ZERO)).isEmpty();
		Delivery<Order> delivery = await().until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty()).get(0);
		LockLease held = delivery.lease().orElseThrow();
		assertThat(held.isValid()).isTrue();
		assertThat(held.name()).isEqualTo("export:1");
		assertThat(held.fencingToken()).isEqualTo(fencingToken);
		assertThat(this.otherInstance.tryAcquire("export:1", Duration.ZERO)).isEmpty();

		assertThat(delivery.ack()).isTrue();

		assertThat(held.isValid()).isFalse();
		assertThat(this.otherInstance.tryAcquire("export:1", Duration.ZERO)).isPresent();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aTakenIdSchedulesNothingAndLeavesTheLeaseWithTheCaller() {
		this.queue.schedule("export-2", new Order("2", 2), Duration.ofMinutes(5));
		LockLease lease = this.locks.tryAcquire("export:2", Duration.ZERO).orElseThrow();

		assertThat(this.queue.schedule("export-2", new Order("2", 2), Duration.ofMinutes(5), lease)).isFalse();

		assertThat(lease.isValid()).isTrue();
		assertThat(this.queue.find("export-2")).get().extracting(ScheduledTask::lock).isNull();
		// Still renewed by its watchdog, past its lease.
		await().pollDelay(LEASE.multipliedBy(2)).until(() -> true);
		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(this.otherInstance.tryAcquire("export:2", Duration.ZERO)).isPresent();
	}

	@Test
	void badInputOrALostLeaseSchedulesNothingAndHandsNothingOver() {
		LockLease lease = this.locks.tryAcquire("export:3", Duration.ZERO).orElseThrow();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule(" ", new Order("3", 3), Duration.ZERO, lease));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("export-3", new Order("3", 3), Duration.ofSeconds(-1), lease));
		assertThat(lease.isValid()).isTrue();
		lease.release();

		assertThatExceptionOfType(LeaseLostException.class)
			.isThrownBy(() -> this.queue.schedule("export-3", new Order("3", 3), Duration.ZERO, lease));
		assertThat(this.queue.find("export-3")).isEmpty();
	}

	@Test
	void aRetryKeepsTheLockThroughItsBackoffAndADeadLetterReleasesIt() {
		LockLease lease = this.locks.tryAcquire("export:4", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-4", new Order("4", 4), Duration.ZERO, lease);
		Delivery<Order> first = await().until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty()).get(0);

		assertThat(first.retry(Duration.ofMillis(1200))).isTrue();

		assertThat(first.lease().orElseThrow().isValid()).as("this delivery no longer holds the task").isFalse();
		await().pollDelay(Duration.ofMillis(900)).until(() -> true);
		assertThat(this.otherInstance.tryAcquire("export:4", Duration.ZERO)).isEmpty();
		Delivery<Order> second = await().until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty()).get(0);
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.lease().orElseThrow().isValid()).isTrue();

		assertThat(second.deadLetter("failed twice")).isTrue();

		assertThat(this.otherInstance.tryAcquire("export:4", Duration.ZERO)).isPresent();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void cancellingReleasesTheLockAndReschedulingKeepsItLonger() {
		LockLease cancelled = this.locks.tryAcquire("export:5", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-5", new Order("5", 5), Duration.ofMinutes(5), cancelled);
		LockLease rescheduled = this.locks.tryAcquire("export:6", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-6", new Order("6", 6), Duration.ZERO, rescheduled);

		assertThat(this.queue.cancel("export-5")).isTrue();
		assertThat(this.queue.reschedule("export-6", Duration.ofMillis(1500))).isTrue();

		assertThat(this.otherInstance.tryAcquire("export:5", Duration.ZERO)).isPresent();
		await().pollDelay(Duration.ofMillis(900)).until(() -> true);
		assertThat(this.otherInstance.tryAcquire("export:6", Duration.ZERO)).isEmpty();
	}

	@Test
	void aDeliveryThatDiesLeavesTheLockToTheRedeliveryAndItsLateAcknowledgementReleasesNothing() {
		LockLease lease = this.locks.tryAcquire("export:7", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-7", new Order("7", 7), Duration.ZERO, lease);
		Duration visibility = Duration.ofMillis(800);
		Delivery<Order> dead = await().until(() -> this.queue.claim(1, visibility).deliveries(),
				(polled) -> !polled.isEmpty()).get(0);

		// Its consumer is gone: nothing extends the lock, which outlasts the visibility timeout.
		Delivery<Order> redelivery = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty())
			.get(0);
		assertThat(redelivery.lease().orElseThrow().isValid()).isTrue();
		assertThat(dead.ack()).as("stale").isFalse();
		assertThat(this.otherInstance.tryAcquire("export:7", Duration.ZERO)).as("kept for the redelivery").isEmpty();

		assertThat(redelivery.ack()).isTrue();
		assertThat(this.otherInstance.tryAcquire("export:7", Duration.ZERO)).isPresent();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aHandlerRunningLongerThanTheLeaseKeepsTheLockThroughTheVisibilityExtensions() {
		LockLease lease = this.locks.tryAcquire("export:10", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-10", new Order("10", 10), Duration.ZERO, lease);
		// Each extension waits a third of it for Redis: 500 ms, enough on a busy machine.
		Duration visibility = Duration.ofMillis(1500);
		Delivery<Order> delivery = await().until(() -> this.queue.claim(1, visibility).deliveries(),
				(polled) -> !polled.isEmpty()).get(0);

		// What the container does while the handler runs: extend a third of the timeout apart,
		// for longer than the lease (400 ms) and the visibility timeout.
		long end = System.nanoTime() + Duration.ofMillis(3500).toNanos();
		while (System.nanoTime() < end) {
			assertThat(this.queue.extendVisibility(List.of(delivery), visibility)).isEmpty();
			assertThat(this.otherInstance.tryAcquire("export:10", Duration.ZERO)).isEmpty();
			await().pollDelay(visibility.dividedBy(3)).until(() -> true);
		}

		assertThat(delivery.lease().orElseThrow().isValid()).isTrue();
		assertThat(delivery.ack()).isTrue();
		assertThat(this.otherInstance.tryAcquire("export:10", Duration.ZERO)).isPresent();
	}

	@Test
	void aLockLostWhileTheTaskWaitedIsReportedAndNeverTakenFromItsNewOwner() {
		LockLease lease = this.locks.tryAcquire("export:8", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-8", new Order("8", 8), Duration.ofMillis(300), lease);
		// Redis lost the lock (an eviction, a failover without the key), and someone else took it.
		this.redis.delete("baton:lock:{export:8}");
		LockLease newOwner = this.otherInstance.tryAcquire("export:8", Duration.ZERO).orElseThrow();

		Delivery<Order> delivery = await().until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty()).get(0);

		LockLease held = delivery.lease().orElseThrow();
		assertThat(held.isValid()).isFalse();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(held::fencingToken);
		await().untilAsserted(() -> assertThat(this.lost).extracting(LockLostEvent::name).containsExactly("export:8"));
		assertThat(delivery.ack()).as("the task still ran, and ends").isTrue();
		assertThat(newOwner.isValid()).isTrue();
		assertThat(this.otherInstance.tryAcquire("export:8", Duration.ZERO)).as("still the new owner's").isEmpty();
		newOwner.release();
	}

	@Test
	void redisLosingEverythingWhileTheTaskRunsReportsTheLossAndCreatesNoLock() {
		LockLease lease = this.locks.tryAcquire("export:9", Duration.ZERO).orElseThrow();
		this.queue.schedule("export-9", new Order("9", 9), Duration.ZERO, lease);
		Delivery<Order> delivery = await().until(() -> this.queue.poll(1), (polled) -> !polled.isEmpty()).get(0);

		// A restart without persistence: the task and its lock are gone while its handler runs.
		this.redis.execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
		List<Delivery<Order>> stale = this.queue.extendVisibility(List.of(delivery), Duration.ofSeconds(30));

		assertThat(stale).containsExactly(delivery);
		assertThat(delivery.lease().orElseThrow().isValid()).isFalse();
		await().untilAsserted(() -> assertThat(this.lost).extracting(LockLostEvent::name).containsExactly("export:9"));
		assertThat(delivery.ack()).isFalse();
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

}
