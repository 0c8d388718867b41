package dev.baton.benchmarks.lock;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Baton's locks with {@code baton.lock.replica-acknowledgement.replicas=1}: the client starts a
 * replica of the benchmark's server on this host, so every acquisition and release also waits for
 * the replica's acknowledgement ({@code WAIT 1}); the replica stops with the client.
 */
final class ReplicaAcknowledgedBatonLockClient implements LockClient {

	private final LocalRedisServer replica;

	private final BatonLockClient baton;

	ReplicaAcknowledgedBatonLockClient(String redisUrl) {
		URI primary = URI.create(redisUrl);
		this.replica = RedisServers.startLocal("--replicaof", primary.getHost(), String.valueOf(primary.getPort()));
		awaitLinkUp(this.replica);
		this.baton = new BatonLockClient(redisUrl, "baton.lock.replica-acknowledgement.replicas=1");
	}

	private static void awaitLinkUp(LocalRedisServer replica) {
		RedisClient client = RedisClient.create(RedisURI.create(replica.host(), replica.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (!connection.sync().info("replication").contains("master_link_status:up")) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The replica did not connect to its primary within 30 s");
				}
				LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
			}
		}
		finally {
			client.shutdown();
		}
	}

	@Override
	public Lock lockFor(String name) {
		return this.baton.lockFor(name);
	}

	@Override
	public void close() {
		this.baton.close();
		this.replica.close();
	}

}
