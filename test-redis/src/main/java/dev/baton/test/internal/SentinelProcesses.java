package dev.baton.test.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

/**
 * Starts a primary, its replica and three sentinels as processes, and waits until every sentinel
 * knows the primary, the replica and the other sentinels, so that a failover can happen at once.
 */
public final class SentinelProcesses implements LocalRedisSentinel {

	private static final String MASTER = "baton";

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private final List<LocalRedisServer> dataNodes;

	private final List<LocalRedisServer> sentinels;

	private SentinelProcesses(List<LocalRedisServer> dataNodes, List<LocalRedisServer> sentinels) {
		this.dataNodes = List.copyOf(dataNodes);
		this.sentinels = List.copyOf(sentinels);
	}

	/**
	 * Starts the set.
	 * @return the set, ready for a failover
	 */
	public static SentinelProcesses start() {
		List<LocalRedisServer> dataNodes = new ArrayList<>();
		List<LocalRedisServer> sentinels = new ArrayList<>();
		try {
			// Either node may be the primary after a failover; Redis 7 would delay each first sync by 5 s.
			LocalRedisServer primary = RedisProcess.start("--repl-diskless-sync-delay", "0");
			dataNodes.add(primary);
			dataNodes.add(RedisProcess.start("--repl-diskless-sync-delay", "0", "--replicaof", primary.host(),
					String.valueOf(primary.port())));
			for (int i = 0; i < 3; i++) {
				sentinels.add(RedisProcess.startWithConfig(sentinelConfig(primary), "--sentinel"));
			}
			SentinelProcesses set = new SentinelProcesses(dataNodes, sentinels);
			set.await("every sentinel to know the replica and the other sentinels, and the replica to be in sync",
					() -> set.isReady() && isInSync(dataNodes.get(1)));
			return set;
		}
		catch (RuntimeException ex) {
			sentinels.forEach(LocalRedisServer::close);
			dataNodes.forEach(LocalRedisServer::close);
			throw ex;
		}
	}

	private static Path sentinelConfig(LocalRedisServer primary) {
		try {
			Path config = Files.createTempDirectory("baton-sentinel").resolve("sentinel.conf");
			Files.writeString(config, String.join("\n", "sentinel monitor " + MASTER + " " + primary.host() + " "
					+ primary.port() + " 2", "sentinel down-after-milliseconds " + MASTER + " 1000",
					"sentinel failover-timeout " + MASTER + " 5000", "sentinel parallel-syncs " + MASTER + " 1", ""));
			return config;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write a sentinel configuration", ex);
		}
	}

	@Override
	public String masterName() {
		return MASTER;
	}

	@Override
	public List<LocalRedisServer> dataNodes() {
		return this.dataNodes;
	}

	@Override
	public List<LocalRedisServer> sentinels() {
		return this.sentinels;
	}

	@Override
	public int primaryPort() {
		return primaryPortKnownTo(this.sentinels.get(0));
	}

	@Override
	public void failover() {
		int before = primaryPort();
		onSentinel(this.sentinels.get(0), (sentinel) -> sentinel.sync().failover(MASTER));
		await("the sentinels to name a new primary",
				() -> this.sentinels.stream().allMatch((node) -> primaryPortKnownTo(node) != before));
	}

	private static int primaryPortKnownTo(LocalRedisServer node) {
		return onSentinel(node, (sentinel) -> ((InetSocketAddress) sentinel.sync().getMasterAddrByName(MASTER)).getPort());
	}

	private boolean isReady() {
		return this.sentinels.stream().allMatch((node) -> onSentinel(node, (sentinel) -> {
			boolean knowsReplica = sentinel.sync().replicas(MASTER).stream().anyMatch((replica) ->
					"slave".equals(replica.get("role-reported")) && !replica.get("flags").contains("down"));
			String otherSentinels = sentinel.sync().master(MASTER).get("num-other-sentinels");
			return knowsReplica && String.valueOf(this.sentinels.size() - 1).equals(otherSentinels);
		}));
	}

	/** Whether the replica has loaded its primary's data and follows its changes. */
	private static boolean isInSync(LocalRedisServer replica) {
		RedisClient client = RedisClient.create(RedisURI.create(replica.host(), replica.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().info("replication").contains("master_link_status:up");
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Timed out after " + READY_TIMEOUT + " waiting for " + what);
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
	}

	private static <R> R onSentinel(LocalRedisServer node,
			Function<StatefulRedisSentinelConnection<String, String>, R> call) {
		RedisClient client = RedisClient.create();
		try (StatefulRedisSentinelConnection<String, String> connection = client
			.connectSentinel(RedisURI.create(node.host(), node.port()))) {
			return call.apply(connection);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	@Override
	public void close() {
		this.sentinels.forEach(LocalRedisServer::close);
		this.dataNodes.forEach(LocalRedisServer::close);
	}

}
