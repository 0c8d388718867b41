package dev.baton;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import dev.baton.lock.LockLease;
import dev.baton.lock.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.listener.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
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
			RedisSentinelTests.Handler handler = new RedisSentinelTests.Handler();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.partitions((name) -> 12)
				.build();
			GenericApplicationContext consumer = new GenericApplicationContext();
			consumer.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
			consumer.registerBean(DelayedTaskListenerRegistry.class,
					() -> DelayedTaskListenerRegistry.builder(queues).build());
			consumer.registerBean(RedisSentinelTests.Handler.class, () -> handler);
			consumer.refresh();
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				List<String> ids = IntStream.range(0, 60).mapToObj((i) -> "order-" + i).toList();
				orders.scheduleAll(ids.stream().map((id) -> NewTask.of(id, "payload", Duration.ofSeconds(4))).toList());
				LocalRedisServer failing = cluster.primaries().get(0);
				awaitReplicated(failing, cluster.replicas().get(0));

				failing.kill();

				await().atMost(Duration.ofSeconds(30)).until(() -> handler.handled.containsAll(ids));
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
		long written = Long.parseLong(replicationField(primary, "master_repl_offset"));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> Long.parseLong(replicationField(replica, "slave_repl_offset")) >= written);
	}

	private static String replicationField(LocalRedisServer server, String field) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			for (String line : connection.sync().info("replication").split("\r?\n")) {
				if (line.startsWith(field + ":")) {
					return line.substring(field.length() + 1).trim();
				}
			}
			return "-1";
		}
		finally {
			client.shutdown();
		}
	}

}
