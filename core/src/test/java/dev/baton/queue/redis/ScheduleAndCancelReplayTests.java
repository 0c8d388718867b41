package dev.baton.queue.redis;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.queue.ScheduledTask;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scheduling and cancelling when the reply of the queue's script is lost and the connection reset,
 * so that Lettuce sends the script again: the answer says what the first run did (before the
 * scripts remembered their replies, a stored task answered {@code false} as a taken id, and a
 * deleted one {@code false} as not waiting), and a task's lock ends up with the task if the task
 * was stored, released if it was deleted.
 */
class ScheduleAndCancelReplayTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	private RedisLockManager locks;

	private RedisDelayQueues queues;

	private StringRedisTemplate redis;

	@BeforeEach
	void start() {
		this.locks = RedisLockManager.builder(this.servers.direct()).build();
		this.queues = RedisDelayQueues.builder(this.servers.throughProxy(), JsonMapper.builder().build())
			.commandTimeout(Duration.ofSeconds(2))
			.lockManager(this.locks)
			.build();
		this.redis = new StringRedisTemplate(this.servers.direct());
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.locks.close();
		this.servers.close();
	}

	@Test
	void aSchedulingWhoseReplyIsLostAnswersThatItStoredTheTask() {
		RedisDelayQueue<Order> queue = connectedQueue();
		this.servers.proxy().dropNextReplyAndReset();

		boolean scheduled = queue.schedule("order-1", new Order("1", 1), Duration.ofMinutes(5));

		assertThat(scheduled).isTrue();
		assertThat(queue.find("order-1")).isPresent();
		assertThat(queue.schedule("order-1", new Order("1", 1), Duration.ofMinutes(5))).as("taken now").isFalse();
	}

	@Test
	void aSchedulingWhoseReplyIsLostLeavesTheLockWithTheTaskItStored() {
		RedisDelayQueue<Order> queue = connectedQueue();
		LockLease lease = this.locks.tryAcquire("export:1", Duration.ZERO).orElseThrow();
		this.servers.proxy().dropNextReplyAndReset();

		Boolean scheduled;
		try {
			scheduled = queue.schedule("export-1", new Order("1", 1), Duration.ofMinutes(5), lease);
		}
		catch (QueueUnavailableException ex) {
			scheduled = null;
		}

		boolean stored = queue.find("export-1").isPresent();
		assertThat(scheduled).as("an answer that says what happened, or none").isIn(stored, null);
		if (stored) {
			assertThat(lease.isValid()).as("handed to the task").isFalse();
			assertThat(queue.find("export-1")).get().extracting(ScheduledTask::lock).isEqualTo("export:1");
			assertThat(queue.cancel("export-1")).isTrue();
			assertThat(this.redis.hasKey("baton:lock:{export:1}")).as("released with the task").isFalse();
		}
	}

	@Test
	void aCancelWhoseReplyIsLostReleasesTheLockOfTheTaskItDeleted() {
		RedisDelayQueue<Order> queue = connectedQueue();
		LockLease lease = this.locks.tryAcquire("export:2", Duration.ZERO).orElseThrow();
		assertThat(queue.schedule("export-2", new Order("2", 2), Duration.ofMinutes(5), lease)).isTrue();
		this.servers.proxy().dropNextReplyAndReset();

		boolean cancelled = queue.cancel("export-2");

		boolean waiting = queue.find("export-2").isPresent();
		assertThat(cancelled).isNotEqualTo(waiting);
		assertThat(this.redis.hasKey("baton:lock:{export:2}")).as("held while the task waits, else released")
			.isEqualTo(waiting);
	}

	@SuppressWarnings("unchecked")
	private RedisDelayQueue<Order> connectedQueue() {
		RedisDelayQueue<Order> queue = (RedisDelayQueue<Order>) this.queues.get("orders", Order.class);
		// Connected and the scripts loaded: the next request is the call under test.
		assertThat(queue.find("warm-up")).isEmpty();
		queue.schedule("warm-up", new Order("0", 0), Duration.ofMinutes(5));
		queue.cancel("warm-up");
		return queue;
	}

}
