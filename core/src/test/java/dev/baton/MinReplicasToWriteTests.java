package dev.baton;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.DirectRedis;
import dev.baton.support.OrdersConsumer;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

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
				"--min-replicas-max-lag", "10", "--repl-diskless-sync-delay", "0");
				LocalRedisServer replica = RedisServers.startLocal("--replicaof", primary.host(),
						String.valueOf(primary.port()))) {
			awaitGoodReplicas(primary, 1);
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(primary.host(), primary.port()));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
			OrdersConsumer consumer = new OrdersConsumer(queues);
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				orders.schedule("stored-before", "payload", Duration.ofSeconds(2));

				replica.kill();
				awaitGoodReplicas(primary, 0);

				assertThatThrownBy(() -> locks.tryAcquire("report", Duration.ZERO))
					.isInstanceOf(LockUnavailableException.class)
					.hasMessageContaining("NOREPLICAS");
				assertThatThrownBy(() -> orders.schedule("during", "payload", Duration.ZERO))
					.isInstanceOf(QueueUnavailableException.class)
					.hasMessageContaining("NOREPLICAS");
				assertThat(DirectRedis.get(primary, "baton:lock:{report}")).isNull();
				assertThat(orders.find("during")).isEmpty();

				replica.restart();
				awaitGoodReplicas(primary, 1);

				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.handled().contains("stored-before"));
				try (LockLease lease = locks.tryAcquire("report", Duration.ZERO).orElseThrow()) {
					assertThat(lease.isValid()).isTrue();
				}
				assertThat(orders.schedule("after", "payload", Duration.ZERO)).isTrue();
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.handled().contains("after"));
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
			.until(() -> DirectRedis.replicationInfo(primary).contains("min_slaves_good_slaves:" + count + "\r\n"));
	}

}
