package dev.baton;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.support.DirectRedis;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code SENTINEL FAILOVER} under an application that follows the switch: the old primary
 * takes writes until the sentinels demote it (about 10 s later), so without the switch the
 * application writes there, and a lock released in that window stays held on the new primary
 * for the rest of its lease.
 */
class SentinelPrimarySwitchTests {

	@Test
	void writesFollowTheNewPrimaryAndALockReleasedOnTheOldOneIsFreeOnTheNew() throws Exception {
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisSentinelConfiguration(sentinel.masterName(), Set.copyOf(sentinel.sentinelNodes())));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			PrimarySwitchWatch watch = PrimarySwitchWatch.of(connectionFactory).orElseThrow();
			try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
				locks.followPrimarySwitches(watch);
				watch.start();
				LocalRedisServer oldPrimary = node(sentinel, sentinel.primaryPort());
				LocalRedisServer newPrimary = sentinel.dataNodes().stream().filter((node) -> node != oldPrimary)
					.findFirst().orElseThrow();
				LockLease nightly = locks.tryAcquire("nightly", Duration.ZERO).orElseThrow();
				await().until(() -> DirectRedis.exists(newPrimary, "baton:lock:{nightly}"));

				CompletableFuture.runAsync(() -> failover(sentinel));
				// The replica may drop connections while it changes role.
				await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
					.until(() -> DirectRedis.replicationInfo(newPrimary).contains("role:master"));
				long promoted = System.nanoTime();
				// Still on the old primary, which takes the release and will lose it.
				nightly.release();

				// About a second after the promotion (the old primary is demoted only after 10 s).
				await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(50))
					.ignoreExceptions()
					.until(() -> wroteTo(newPrimary, locks));
				Duration followed = Duration.ofNanos(System.nanoTime() - promoted);
				// The release is sent again to the new primary, which would otherwise hold it for its lease (30 s).
				await().atMost(Duration.ofSeconds(4)).ignoreExceptions()
					.until(() -> !DirectRedis.exists(newPrimary, "baton:lock:{nightly}"));
				assertThat(followed).isLessThan(Duration.ofSeconds(4));
			}
			finally {
				watch.close();
				connectionFactory.destroy();
			}
		}
	}

	/** Whether a lock taken now through the application lands on that node. */
	private static boolean wroteTo(LocalRedisServer node, RedisLockManager locks) {
		return locks.tryAcquire("probe:held", Duration.ZERO).map((lease) -> {
			boolean there = DirectRedis.exists(node, "baton:lock:{probe:held}");
			lease.release();
			return there;
		}).orElse(false);
	}

	private static LocalRedisServer node(LocalRedisSentinel sentinel, int port) {
		return sentinel.dataNodes().stream().filter((node) -> node.port() == port).findFirst().orElseThrow();
	}

	/** Asks for a failover without waiting for it, as an operator would. */
	private static void failover(LocalRedisSentinel sentinel) {
		LocalRedisServer node = sentinel.sentinels().get(0);
		RedisClient client = RedisClient.create(RedisURI.create(node.host(), node.port()));
		try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
			connection.sync().failover(sentinel.masterName());
		}
		finally {
			client.shutdown();
		}
	}

}
