package dev.baton.lock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.support.DirectRedis;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Locks that wait for a replica: a primary whose replica follows it through a proxy, so that the
 * tests can slow replication down or cut it off.
 */
class ReplicaAcknowledgementTests {

	private LocalRedisServer primary;

	private RedisProxy replicationLink;

	private LocalRedisServer replica;

	private LettuceConnectionFactory connectionFactory;

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	@BeforeEach
	void startPrimaryAndReplica() {
		// Redis 7 would delay the replica's first sync by 5 s.
		this.primary = RedisServers.startLocal("--repl-diskless-sync-delay", "0");
		this.replicationLink = RedisProxy.to(this.primary);
		this.replica = RedisServers.startLocal("--replicaof", this.replicationLink.host(),
				String.valueOf(this.replicationLink.port()));
		await().atMost(Duration.ofSeconds(10)).until(() -> DirectRedis.replicationInfo(this.replica).contains("master_link_status:up"));
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.primary.host(), this.primary.port()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void stop() {
		this.connectionFactory.destroy();
		this.replica.close();
		this.replicationLink.close();
		this.primary.close();
	}

	@Test
	void acquireAndReleaseReturnOnlyOnceTheReplicaHasTheirWrite() {
		// Replication takes 300 ms each way: without waiting, the replica would not have the lock yet.
		this.replicationLink.latency(Duration.ofMillis(300));
		try (RedisLockManager locks = manager(Duration.ofSeconds(5))) {
			LockLease lease = locks.tryAcquire("invoice:7", Duration.ZERO).orElseThrow();

			assertThat(DirectRedis.get(this.replica, "baton:lock:{invoice:7}")).isNotNull();
			lease.release();
			assertThat(DirectRedis.get(this.replica, "baton:lock:{invoice:7}")).isNull();
		}
		assertThat(unreplicated("acquire") + unreplicated("release")).isZero();
	}

	@Test
	void acquisitionThatTheReplicaDoesNotGetInTimeIsRefusedAndGivenUp() {
		this.replicationLink.blackHole();
		try (RedisLockManager locks = manager(Duration.ofMillis(200))) {
			assertThatThrownBy(() -> locks.tryAcquire("invoice:8", Duration.ZERO))
				.isInstanceOf(LockUnavailableException.class)
				.hasMessageContaining("Lock 'invoice:8' was not granted: 0 of 1 replica(s) had it in time");

			await().atMost(Duration.ofSeconds(5)).until(() -> DirectRedis.get(this.primary, "baton:lock:{invoice:8}") == null);
			assertThat(unreplicated("acquire")).isEqualTo(1);
		}
	}

	@Test
	void releaseThatTheReplicaDoesNotGetInTimeTakesEffectAndIsReported() {
		try (RedisLockManager locks = manager(Duration.ofMillis(200))) {
			LockLease lease = locks.tryAcquire("invoice:9", Duration.ZERO).orElseThrow();
			this.replicationLink.blackHole();

			lease.release();

			assertThat(DirectRedis.get(this.primary, "baton:lock:{invoice:9}")).isNull();
			assertThat(unreplicated("release")).isEqualTo(1);
		}
	}

	@Test
	void aHandOffThatTheReplicaDoesNotGetIsUndoneAndTheWaiterMustAcquireWithAcknowledgement() throws Exception {
		try (RedisLockManager locks = manager(Duration.ofMillis(200))) {
			LockLease holder = locks.tryAcquire("invoice:10", Duration.ZERO).orElseThrow();
			// A lease time of its own: the lock changes hands in Redis, not within this JVM.
			AtomicReference<Thread> waiterThread = new AtomicReference<>();
			CompletableFuture<Optional<LockLease>> waiter = CompletableFuture.supplyAsync(() -> {
				waiterThread.set(Thread.currentThread());
				return locks.tryAcquire("invoice:10", Duration.ofSeconds(3), Duration.ofSeconds(20));
			});
			// In line, not only refused: released before, the lock would go through Redis, not be handed off.
			InLine.awaitInLine(waiterThread);
			this.replicationLink.blackHole();

			holder.release();

			// Granting it would let a failover to the replica give the lock to someone else.
			assertThat(waiter).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.withCauseInstanceOf(LockUnavailableException.class)
				.withMessageContaining("0 of 1 replica(s) had it in time");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> DirectRedis.get(this.primary, "baton:lock:{invoice:10}") == null);
			assertThat(unreplicated("hand-off")).isEqualTo(1);
		}
	}

	@Test
	void inAClusterEachLockWaitsForTheReplicaOfItsOwnPrimary() {
		try (LocalRedisCluster cluster = RedisServers.startCluster(3, 1)) {
			LettuceConnectionFactory clusterConnections = new LettuceConnectionFactory(
					new RedisClusterConfiguration(cluster.nodes()));
			clusterConnections.afterPropertiesSet();
			clusterConnections.start();
			try (RedisLockManager locks = RedisLockManager.builder(clusterConnections)
				.replicaAcknowledgement(1, Duration.ofSeconds(5))
				.meterRegistry(this.meters)
				.build()) {
				// Names whose slots fall on every primary.
				for (int i = 0; i < 30; i++) {
					locks.tryAcquire("shipment:" + i, Duration.ZERO).orElseThrow().release();
				}
			}
			finally {
				clusterConnections.destroy();
			}
		}
		assertThat(unreplicated("acquire") + unreplicated("release")).isZero();
	}

	@Test
	void negativeReplicaCountIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisLockManager.builder(this.connectionFactory).replicaAcknowledgement(-1, Duration.ofSeconds(1)))
			.withMessage("Replicas to wait for must not be negative, was -1");
	}

	private RedisLockManager manager(Duration replicaTimeout) {
		return RedisLockManager.builder(this.connectionFactory)
			.replicaAcknowledgement(1, replicaTimeout)
			.meterRegistry(this.meters)
			.build();
	}

	private double unreplicated(String operation) {
		var counter = this.meters.find("baton.lock.unreplicated").tag("operation", operation).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
