package dev.baton;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.listener.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A primary that refuses writes while it has no replica ({@code min-replicas-to-write 1}, which
 * the guide recommends against writes to a primary cut off from the others): lock calls and
 * scheduling fail with Redis's reason and nothing is half-written; once the replica is back,
 * locks work again and the task stored before runs.
 */
class MinReplicasToWriteTests {

	@Test
	void whileThePrimaryRefusesWritesCallsFailAndOnceItAcceptsThemAgainNothingIsLost() {
		try (LocalRedisServer primary = RedisServers.startLocal("--min-replicas-to-write", "1",
				"--min-replicas-max-lag", "10");
				LocalRedisServer replica = RedisServers.startLocal("--replicaof", primary.host(),
						String.valueOf(primary.port()))) {
			awaitGoodReplicas(primary, 1);
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(primary.host(), primary.port()));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			RedisSentinelTests.Handler handler = new RedisSentinelTests.Handler();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
			GenericApplicationContext consumer = new GenericApplicationContext();
			consumer.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
			consumer.registerBean(DelayedTaskListenerRegistry.class,
					() -> DelayedTaskListenerRegistry.builder(queues).build());
			consumer.registerBean(RedisSentinelTests.Handler.class, () -> handler);
			consumer.refresh();
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				orders.schedule("stored-before", "payload", Duration.ofSeconds(2));

				replica.kill();
				awaitGoodReplicas(primary, 0);

				assertThatThrownBy(() -> locks.tryAcquire("report", Duration.ZERO))
					.isInstanceOf(LockUnavailableException.class)
					.hasMessageContaining("NOREPLICAS");
				assertThatThrownBy(() -> orders.schedule("during", "payload", Duration.ZERO))
					.isInstanceOf(RedisSystemException.class)
					.hasMessageContaining("NOREPLICAS");
				assertThat(get(primary, "baton:lock:{report}")).isNull();
				assertThat(orders.find("during")).isEmpty();

				replica.restart();
				awaitGoodReplicas(primary, 1);

				await().atMost(Duration.ofSeconds(30)).until(() -> handler.handled.contains("stored-before"));
				try (LockLease lease = locks.tryAcquire("report", Duration.ZERO).orElseThrow()) {
					assertThat(lease.isValid()).isTrue();
				}
				assertThat(orders.schedule("after", "payload", Duration.ZERO)).isTrue();
				await().atMost(Duration.ofSeconds(30)).until(() -> handler.handled.contains("after"));
				assertThat(orders.stats().inFlight() + orders.stats().due() + orders.stats().scheduled()).isZero();
			}
			finally {
				consumer.close();
				queues.close();
				connectionFactory.destroy();
			}
		}
	}

	private static void awaitGoodReplicas(RedisServer primary, int count) {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> info(primary).contains("min_slaves_good_slaves:" + count + "\r\n"));
	}

	private static String info(RedisServer server) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().info("replication");
		}
		finally {
			client.shutdown();
		}
	}

	private static String get(RedisServer server, String key) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().get(key);
		}
		finally {
			client.shutdown();
		}
	}

}
