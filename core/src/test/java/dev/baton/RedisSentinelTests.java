package dev.baton;

import java.time.Duration;
import java.util.Set;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.OrdersConsumer;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks and delayed tasks behind Redis Sentinel (a primary, a replica, three sentinels), before
 * and after a {@code SENTINEL FAILOVER}: a lean set of the standalone semantics, and locks that
 * wait for the replica. What a failover does to locks and tasks in flight is not measured here.
 */
class RedisSentinelTests {

	@Test
	void locksAndTasksWorkThroughSentinelsAndAgainAfterAFailover() {
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisSentinelConfiguration(sentinel.masterName(), Set.copyOf(sentinel.sentinelNodes())));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
			OrdersConsumer consumer = new OrdersConsumer(queues);
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build();
					RedisLockManager replicated = RedisLockManager.builder(connectionFactory)
						.replicaAcknowledgement(1, Duration.ofSeconds(2))
						.build()) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				lockAndHandle(locks, orders, consumer, "before");
				lockAndRelease(replicated, "replicated:before");

				int primary = sentinel.primaryPort();
				sentinel.failover();
				assertThat(sentinel.primaryPort()).isNotEqualTo(primary);

				// Lettuce follows the sentinels to the new primary; the first calls may fail meanwhile
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
					try (LockLease lease = locks.tryAcquire("report:after", Duration.ZERO).orElseThrow()) {
						assertThat(lease.isValid()).isTrue();
					}
				});
				lockAndHandle(locks, orders, consumer, "after");
				// The demoted primary now replicates the new one: waiting for a replica works again,
				// on connections to the new primary.
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
					.untilAsserted(() -> lockAndRelease(replicated, "replicated:after"));
				for (int i = 0; i < 20; i++) {
					lockAndRelease(replicated, "replicated:" + i);
				}
			}
			finally {
				consumer.close();
				queues.close();
				connectionFactory.destroy();
			}
		}
	}

	private static void lockAndHandle(RedisLockManager locks, DelayQueue<String> orders, OrdersConsumer consumer,
			String id) {
		try (LockLease lease = locks.tryAcquire("report:" + id, Duration.ZERO).orElseThrow()) {
			assertThat(locks.tryAcquire("report:" + id, Duration.ZERO)).isEmpty();
			assertThat(lease.isValid()).isTrue();
		}
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
			.until(() -> orders.schedule(id, "payload", Duration.ZERO) || orders.find(id).isEmpty());
		await().atMost(Duration.ofSeconds(30)).until(() -> consumer.handled().contains(id));
	}

	private static void lockAndRelease(RedisLockManager locks, String name) {
		try (LockLease lease = locks.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(lease.isValid()).isTrue();
		}
	}

}
