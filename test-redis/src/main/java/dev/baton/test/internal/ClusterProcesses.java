package dev.baton.test.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Starts a Redis Cluster the way {@code redis-cli --cluster create} does, with commands only (no
 * {@code redis-cli} is needed): each primary gets its share of slots, every node meets the first
 * one, each replica follows its primary, and the cluster is used once every node reports
 * {@code cluster_state:ok} and knows every other node, and every replica's link is up.
 */
public final class ClusterProcesses implements LocalRedisCluster {

	private static final int SLOTS = 16_384;

	/** A node also listens on its port plus this, for the cluster bus. */
	private static final int BUS_OFFSET = 10_000;

	private static final Duration FORMING_TIMEOUT = Duration.ofSeconds(30);

	private final List<LocalRedisServer> primaries;

	private final List<LocalRedisServer> replicas;

	private ClusterProcesses(List<LocalRedisServer> primaries, List<LocalRedisServer> replicas) {
		this.primaries = List.copyOf(primaries);
		this.replicas = List.copyOf(replicas);
	}

	/**
	 * Starts a cluster of the given number of primaries, each with the given number of replicas.
	 * @param primaries how many primaries, at least 1
	 * @param replicasPerPrimary how many replicas each primary has, at least 0
	 * @param arguments extra {@code redis-server} arguments of every node
	 * @return the formed cluster
	 */
	public static ClusterProcesses start(int primaries, int replicasPerPrimary, String... arguments) {
		if (primaries < 1 || replicasPerPrimary < 0) {
			throw new IllegalArgumentException("A cluster needs at least one primary and no negative number of replicas, "
					+ "was " + primaries + " and " + replicasPerPrimary);
		}
		List<LocalRedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < primaries * (1 + replicasPerPrimary); i++) {
				// Redis 7 delays a replica's first sync by 5 s by default; the cluster is ready sooner without.
				List<String> nodeArguments = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
						"nodes.conf", "--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0"));
				nodeArguments.addAll(List.of(arguments));
				nodes.add(RedisProcess.startOn(portWithFreeBus(), nodeArguments.toArray(String[]::new)));
			}
			ClusterProcesses cluster = new ClusterProcesses(nodes.subList(0, primaries),
					nodes.subList(primaries, nodes.size()));
			cluster.form();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(LocalRedisServer::close);
			throw ex;
		}
	}

	private void form() {
		RedisClient client = RedisClient.create();
		try {
			List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
			for (LocalRedisServer node : allNodes()) {
				connections.add(client.connect(RedisURI.create(node.host(), node.port())));
			}
			int primaryCount = this.primaries.size();
			int share = SLOTS / primaryCount;
			for (int i = 0; i < primaryCount; i++) {
				int from = i * share;
				int to = (i == primaryCount - 1) ? SLOTS : from + share;
				connections.get(i).sync().clusterAddSlots(IntStream.range(from, to).toArray());
			}
			LocalRedisServer first = this.primaries.get(0);
			connections.forEach((connection) -> connection.sync().clusterMeet(first.host(), first.port()));
			awaitFormed(connections, () -> isFormed(connections));
			int replicasPerPrimary = this.replicas.size() / primaryCount;
			for (int i = 0; i < this.replicas.size(); i++) {
				String primaryId = connections.get(i / replicasPerPrimary).sync().clusterMyId();
				connections.get(primaryCount + i).sync().clusterReplicate(primaryId);
			}
			awaitFormed(connections, () -> isFormed(connections) && replicasAreLinked(connections));
			connections.forEach(StatefulRedisConnection::close);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private void awaitFormed(List<StatefulRedisConnection<String, String>> connections, BooleanSupplier formed) {
		long deadline = System.nanoTime() + FORMING_TIMEOUT.toNanos();
		while (!formed.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Redis Cluster of " + connections.size() + " nodes did not form within "
						+ FORMING_TIMEOUT + "; see the nodes' redis.log");
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while the cluster formed", ex);
			}
		}
	}

	private boolean isFormed(List<StatefulRedisConnection<String, String>> connections) {
		for (StatefulRedisConnection<String, String> connection : connections) {
			RedisCommands<String, String> commands = connection.sync();
			String info = commands.clusterInfo();
			if (!info.contains("cluster_state:ok")
					|| !info.contains("cluster_known_nodes:" + connections.size() + "\r\n")) {
				return false;
			}
		}
		return true;
	}

	private boolean replicasAreLinked(List<StatefulRedisConnection<String, String>> connections) {
		for (StatefulRedisConnection<String, String> replica : connections.subList(this.primaries.size(),
				connections.size())) {
			if (!replica.sync().info("replication").contains("master_link_status:up")) {
				return false;
			}
		}
		return true;
	}

	private List<LocalRedisServer> allNodes() {
		List<LocalRedisServer> nodes = new ArrayList<>(this.primaries);
		nodes.addAll(this.replicas);
		return nodes;
	}

	/** A free port whose cluster bus port is free too. */
	private static int portWithFreeBus() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(20_000, 55_000);
			if (isFree(port) && isFree(port + BUS_OFFSET)) {
				return port;
			}
		}
		throw new IllegalStateException("No free port pair for a cluster node");
	}

	private static boolean isFree(int port) {
		try {
			new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public List<LocalRedisServer> primaries() {
		return this.primaries;
	}

	@Override
	public List<LocalRedisServer> replicas() {
		return this.replicas;
	}

	@Override
	public void close() {
		allNodes().forEach(LocalRedisServer::close);
	}

}
