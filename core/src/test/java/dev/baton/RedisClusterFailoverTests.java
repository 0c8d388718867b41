package dev.baton;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.DirectRedis;
import dev.baton.support.OrdersConsumer;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A primary of a Redis Cluster (3 primaries with a replica each) killed while a partitioned queue
 * holds tasks on it and locks are in use, with the Lettuce settings the guide recommends
 * (adaptive and periodic topology refresh): its replica takes over, every replicated task still
 * runs once, and locks work again.
 */
class RedisClusterFailoverTests {

	@Test
	void tasksStoredOnAKilledPrimaryRunOnItsReplicaAndLocksWorkAgain() {
		try (LocalRedisCluster cluster = RedisServers.startCluster(3, 1)) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisClusterConfiguration(cluster.nodes()), refreshingTopology());
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.partitions((name) -> 12)
				.build();
			OrdersConsumer consumer = new OrdersConsumer(queues);
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				List<String> ids = IntStream.range(0, 60).mapToObj((i) -> "order-" + i).toList();
				orders.scheduleAll(ids.stream().map((id) -> NewTask.of(id, "payload", Duration.ofSeconds(4))).toList());
				LocalRedisServer failing = cluster.primaries().get(0);
				awaitReplicated(failing, cluster.replicas().get(0));

				failing.kill();

				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.handled().containsAll(ids));
				assertThat(orders.stats().inFlight() + orders.stats().due() + orders.stats().scheduled()).isZero();
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
					for (int i = 0; i < 20; i++) {
						try (LockLease lease = locks.tryAcquire("report:" + i, Duration.ZERO).orElseThrow()) {
							assertThat(lease.isValid()).isTrue();
						}
					}
				});
			}
			finally {
				consumer.close();
				queues.close();
				connectionFactory.destroy();
			}
		}
	}

	/** The guide's recommendation: follow a failover within about a second. */
	private static LettuceClientConfiguration refreshingTopology() {
		return LettuceClientConfiguration.builder()
			.clientOptions(ClusterClientOptions.builder()
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.enablePeriodicRefresh(Duration.ofSeconds(1))
					.build())
				.build())
			.build();
	}

	/** Waits until the replica has every write its primary had, so that the kill loses none. */
	private static void awaitReplicated(LocalRedisServer primary, LocalRedisServer replica) {
		long written = Long.parseLong(DirectRedis.replicationField(primary, "master_repl_offset"));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> Long.parseLong(DirectRedis.replicationField(replica, "slave_repl_offset")) >= written);
	}

}
