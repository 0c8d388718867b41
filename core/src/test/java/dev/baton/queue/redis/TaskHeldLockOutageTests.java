package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.Delivery;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks that hold locks while the lock manager's connection is black-holed and the queue's is
 * not: keeping their locks along with a visibility extension, and releasing them after an
 * acknowledgement, waits for Redis once, not once per lock, so that the extension of the tasks'
 * visibility is not held up; the locks run out within what they have, and nothing is lost.
 */
class TaskHeldLockOutageTests {

	private static final Duration LOCK_COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static final int TASKS = 6;

	private final ProxiedRedis servers = ProxiedRedis.start();

	private RedisLockManager locks;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.locks = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(LOCK_COMMAND_TIMEOUT)
			.build();
		this.queues = RedisDelayQueues.builder(this.servers.direct(), JsonMapper.builder().build())
			.lockManager(this.locks)
			.build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.locks.close();
		this.servers.close();
	}

	@Test
	void anUnreachableLockManagerCostsOneCommandTimeoutPerCallNotOnePerLock() {
		@SuppressWarnings("unchecked")
		RedisDelayQueue<Order> queue = (RedisDelayQueue<Order>) this.queues.get("orders", Order.class);
		for (int i = 0; i < TASKS; i++) {
			LockLease lease = this.locks.tryAcquire("export:" + i, Duration.ZERO).orElseThrow();
			assertThat(queue.schedule("export-" + i, new Order(Integer.toString(i), i), Duration.ZERO, lease)).isTrue();
		}
		List<Delivery<Order>> deliveries = queue.claim(TASKS, Duration.ofSeconds(30)).deliveries();
		assertThat(deliveries).hasSize(TASKS);
		this.servers.proxy().blackHole();

		long extending = System.nanoTime();
		assertThat(queue.extendVisibility(deliveries, Duration.ofSeconds(30))).as("none stale").isEmpty();
		Duration extended = Duration.ofNanos(System.nanoTime() - extending);
		long acknowledging = System.nanoTime();
		assertThat(queue.acknowledge(deliveries)).as("none stale").isEmpty();
		Duration acknowledged = Duration.ofNanos(System.nanoTime() - acknowledging);

		// One lock call waited its timeout each time, not one per task (6 x 500 ms).
		assertThat(extended).isLessThan(LOCK_COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(acknowledged).isLessThan(LOCK_COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(queue.stats().inFlight()).isZero();
	}

}
