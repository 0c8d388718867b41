package dev.baton.harness;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster of {@value FaultSchedule#CLUSTER_PRIMARIES} primaries without replicas, each
 * writing an append-only file before it answers ({@code appendfsync no}, as the standalone
 * server; {@link RedisServers#startCluster(int, int, String...)}, {@code cluster-node-timeout} 2 s),
 * each instance a cluster client of its own with Lettuce's and Spring Boot's defaults. The harness
 * queue has {@value #QUEUE_PARTITIONS} partitions, so that it lives on every primary. Its faults,
 * on the server track, each hit one primary:
 * <ul>
 * <li>{@link FaultKind#PRIMARY_FREEZE}: {@code kill -STOP} of the primary's {@code redis-server}
 * process (its pid from {@code INFO server}), {@code kill -CONT} after 1 to 4 s. Its clients'
 * connections stay open and their commands wait; beyond the node timeout the other primaries mark
 * it failed, and with a slot uncovered the whole cluster answers {@code CLUSTERDOWN} until the mark
 * is cleared (up to twice the node timeout after it was set). The fault ends once every primary
 * reports {@code cluster_state:ok} again.</li>
 * <li>{@link FaultKind#PRIMARY_KILL_WITH_AOF}, drawn instead of about one freeze in two:
 * {@code kill -9} of the primary, restarted at the freeze's end from its append-only file and its
 * {@code nodes.conf}. Its clients' connections are reset and refused meanwhile (Lettuce sends their
 * unanswered commands again once it reconnects), and the cluster fails as for a freeze; the node
 * comes back with every write it answered and its slots.</li>
 * <li>{@link FaultKind#PRIMARY_PAUSE}: {@code CLIENT PAUSE} of the primary for 3 to 8 s: its
 * clients' commands wait, but the cluster bus goes on, so the cluster stays up and the partitions
 * on the other primaries should keep delivering ({@link ProgressChecks}).</li>
 * <li>{@link FaultKind#CLIENT_KILL}: {@code CLIENT KILL TYPE normal} on the primary: the
 * instances' connections to that node are reset, and Lettuce may send unanswered commands again
 * after reconnecting.</li>
 * </ul>
 * Each instance reaches every node through a proxy of its own ({@link InstanceProxies#perNode}),
 * so its link faults (cut, black hole, latency, reset after forward) come as on a standalone
 * Redis, as do consumer, lock manager and instance restarts. A lock instance in a child JVM
 * reaches the nodes straight, and the schedule pauses it as on a standalone Redis.
 *
 * <p>What is left out, and why:
 * <ul>
 * <li>{@code kill -9} of a primary with failover to its replica, or restarted without its data:
 * this cluster has no replicas, so a primary restarted empty would own its slots without their
 * keys (a standalone kill, on a third of the keys) and no failover would be tested. A cluster
 * with replicas would add the window in which a frozen or partitioned primary's writes are lost
 * to the promoted replica, which the docs excuse.</li>
 * </ul>
 *
 * <p>Nothing is excused as lost with Redis's data ({@link #dataLoss} is empty): without a replica
 * nothing is promoted, and a killed primary comes back from its file. A frozen primary makes calls for
 * its slots (and, while the cluster is down, every call) time out or fail, which the docs allow:
 * holders lose locks they cannot renew (and are told), tasks come back after their visibility
 * timeout, and commands queued in the frozen node's sockets run when it resumes. Every change of a
 * primary's {@code cluster_state}, as polled every 200 ms, goes to the timeline.
 */
final class ClusterTopology implements HarnessTopology, ServerFaults {

	/** Two per primary on average: one paused primary leaves the others' partitions answering. */
	private static final int QUEUE_PARTITIONS = 6;

	/** How long after {@code SIGCONT} a freeze waits for every primary to report {@code cluster_state:ok}. */
	private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(15);

	private final Timeline timeline;

	private final LocalRedisCluster cluster = RedisServers.startCluster(FaultSchedule.CLUSTER_PRIMARIES, 0,
			"--appendonly", "yes", "--appendfsync", "no");

	private final LettuceConnectionFactory checker;

	private final RedisClient client = RedisClient.create();

	/** One per primary, for the faults' commands; new ones once a killed primary is back. */
	private final List<StatefulRedisConnection<String, String>> admins = new CopyOnWriteArrayList<>();

	/** One per primary, for the state watch alone: a frozen node's queued polls delay no fault. */
	private final List<StatefulRedisConnection<String, String>> watches = new CopyOnWriteArrayList<>();

	private final List<Long> pids = new CopyOnWriteArrayList<>();

	/** Indexes of the primaries frozen or killed now, which the state watch leaves alone. */
	private final Set<Integer> frozen = ConcurrentHashMap.newKeySet();

	/** Each primary's last {@code cluster_state}, as the watch saw it. */
	private final Map<Integer, String> states = new ConcurrentHashMap<>();

	/** Every primary frozen or killed, and when the cluster was whole again. */
	private final List<PrimaryOutage> outages = new CopyOnWriteArrayList<>();

	private final Thread stateWatch;

	private final PartitionNodes partitionNodes;

	private volatile boolean closed;

	ClusterTopology(Timeline timeline) {
		this.timeline = timeline;
		try {
			this.checker = HarnessInstance.connectionFactory(configuration(), null);
			for (LocalRedisServer primary : this.cluster.primaries()) {
				StatefulRedisConnection<String, String> admin = connect(primary);
				this.admins.add(admin);
				this.watches.add(connect(primary));
				this.pids.add(processId(admin.sync().info("server"), primary));
			}
			this.partitionNodes = locatePartitions();
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
		this.stateWatch = new Thread(this::watchStates, "harness-cluster-state");
		this.stateWatch.setDaemon(true);
		this.stateWatch.start();
	}

	private RedisClusterConfiguration configuration() {
		return new RedisClusterConfiguration(this.cluster.nodes());
	}

	private StatefulRedisConnection<String, String> connect(LocalRedisServer node) {
		return this.client.connect(
				RedisURI.builder().withHost(node.host()).withPort(node.port()).withTimeout(Duration.ofSeconds(2)).build());
	}

	private static long processId(String info, LocalRedisServer node) {
		long pid = info.lines()
			.filter((line) -> line.startsWith("process_id:"))
			.mapToLong((line) -> Long.parseLong(line.substring("process_id:".length()).trim()))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("INFO server of :" + node.port() + " names no process_id"));
		if (ProcessHandle.of(pid).isEmpty()) {
			throw new IllegalStateException("no local process " + pid + " for the node on :" + node.port());
		}
		return pid;
	}

	/** The primary of each partition of the harness queue: it answers for the partition's keys, the others redirect. */
	private PartitionNodes locatePartitions() {
		int[] nodes = new int[QUEUE_PARTITIONS];
		for (int partition = 0; partition < QUEUE_PARTITIONS; partition++) {
			nodes[partition] = -1;
			for (int node = 0; node < this.admins.size() && nodes[partition] < 0; node++) {
				try {
					this.admins.get(node).sync().exists(PartitionNodes.dueKey(partition));
					nodes[partition] = node;
				}
				catch (RuntimeException ex) {
					// MOVED: another primary serves it.
				}
			}
			if (nodes[partition] < 0) {
				throw new IllegalStateException("no primary answers for partition " + partition);
			}
		}
		return new PartitionNodes(nodes);
	}

	@Override
	public PartitionNodes partitionNodes() {
		return this.partitionNodes;
	}

	/** Past a paused primary's pause: what one failing partition holds up then lasts the whole pause. */
	@Override
	public Visibility visibility() {
		return Visibility.PAST_A_PAUSE;
	}

	@Override
	public FaultSchedule schedule(long seed, int instances, long lengthMillis) {
		return FaultSchedule.generateCluster(seed, instances, lengthMillis);
	}

	@Override
	public Link connect(int instance) {
		return new Link(configuration(), InstanceProxies.perNode(this.cluster.primaries()));
	}

	@Override
	public List<String> childRedis() {
		List<String> redis = new ArrayList<>(List.of("cluster"));
		redis.addAll(this.cluster.nodes());
		return redis;
	}

	@Override
	public LettuceConnectionFactory checker() {
		return this.checker;
	}

	@Override
	public ServerFaults serverFaults() {
		return this;
	}

	@Override
	public void apply(Fault fault, LongConsumer sleepUntil) {
		int node = fault.node();
		LocalRedisServer primary = this.cluster.primaries().get(node);
		String name = "primary-" + node + " :" + primary.port();
		switch (fault.kind()) {
			case PRIMARY_FREEZE -> {
				long pid = this.pids.get(node);
				stopped(fault, name, "(pid " + pid + ") frozen, kill -STOP", () -> signal("STOP", pid),
						"resumed, kill -CONT", () -> signal("CONT", pid), sleepUntil);
			}
			case PRIMARY_KILL_WITH_AOF -> stopped(fault, name, "killed, kill -9", primary::kill,
					"restarted from its append-only file", () -> restart(node, primary), sleepUntil);
			case PRIMARY_PAUSE -> {
				// The state watch would wait on it: left alone until the pause ends.
				this.frozen.add(node);
				try {
					this.admins.get(node).sync().clientPause(fault.durationMillis());
					this.timeline.record(Timeline.FAULT, name + " paused, CLIENT PAUSE " + fault.durationMillis());
					sleepUntil.accept(fault.endMillis());
				}
				finally {
					this.frozen.remove(node);
				}
				this.timeline.record(Timeline.FAULT, name + " pause over");
			}
			case CLIENT_KILL -> {
				long killed = this.admins.get(node).sync().clientKill(KillArgs.Builder.typeNormal().skipme());
				this.timeline.record(Timeline.FAULT, killed + " normal clients of " + name + " killed");
			}
			default -> throw new IllegalArgumentException(fault.kind() + " is no fault of a Redis Cluster");
		}
	}

	/**
	 * Keeps a primary stopped for the fault's duration, then waits for every primary to report
	 * {@code cluster_state:ok}; the state watch leaves it alone meanwhile.
	 */
	private void stopped(Fault fault, String name, String stoppedAs, Runnable stop, String resumedAs, Runnable resume,
			LongConsumer sleepUntil) {
		int node = fault.node();
		this.frozen.add(node);
		long start = this.timeline.now();
		try {
			stop.run();
			this.timeline.record(Timeline.FAULT, name + " " + stoppedAs);
			sleepUntil.accept(fault.endMillis());
		}
		finally {
			try {
				resume.run();
			}
			finally {
				this.frozen.remove(node);
			}
		}
		long end = this.timeline.now();
		this.timeline.record(Timeline.FAULT, name + " " + resumedAs);
		boolean ok = awaitClusterOk();
		this.outages.add(new PrimaryOutage(fault.kind(), start, end, ok ? this.timeline.now() : -1));
		this.timeline.record(Timeline.FAULT, ok ? "every primary reports cluster_state:ok"
				: "not every primary reports cluster_state:ok " + RECOVERY_TIMEOUT.toSeconds() + " s after "
						+ name + " was back: " + this.states);
	}

	/** Starts a killed primary again, with new connections of its own: the old ones would wait out Lettuce's backoff. */
	private void restart(int node, LocalRedisServer primary) {
		primary.restart();
		this.admins.set(node, connect(primary)).close();
		this.watches.set(node, connect(primary)).close();
		this.pids.set(node, processId(this.admins.get(node).sync().info("server"), primary));
	}

	private static void signal(String signal, long pid) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
						+ new String(kill.getInputStream().readAllBytes()).trim());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot run kill -" + signal + " " + pid, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted sending " + signal + " to " + pid, ex);
		}
	}

	private boolean awaitClusterOk() {
		long deadline = System.nanoTime() + RECOVERY_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (this.admins.stream().allMatch(ClusterTopology::isOk)) {
				return true;
			}
			Pause.millis(100);
		}
		return false;
	}

	private static boolean isOk(StatefulRedisConnection<String, String> node) {
		try {
			return node.sync().clusterInfo().contains("cluster_state:ok");
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/** Records every change of a primary's {@code cluster_state}, leaving frozen primaries alone. */
	private void watchStates() {
		while (!this.closed) {
			for (int node = 0; node < this.watches.size(); node++) {
				if (this.frozen.contains(node)) {
					continue;
				}
				String state;
				try {
					state = this.watches.get(node).sync().clusterInfo().lines()
						.filter((line) -> line.startsWith("cluster_state:"))
						.findFirst()
						.orElse("cluster_state:?");
				}
				catch (RuntimeException ex) {
					if (this.closed) {
						return;
					}
					state = "unreachable";
				}
				String last = this.states.put(node, state);
				if (!state.equals(last) && (last != null || !state.equals("cluster_state:ok"))) {
					this.timeline.record(Timeline.FAULT, "primary-" + node + " :"
							+ this.cluster.primaries().get(node).port() + " " + state);
				}
			}
			Pause.millis(200);
		}
	}

	/**
	 * None: no replica is promoted and a killed node comes back from its append-only file, so the
	 * cluster forgets nothing it acknowledged.
	 */
	@Override
	public List<long[]> dataLoss(FaultInjector faults) {
		return List.of();
	}

	@Override
	public List<String> totals(TaskLedger ledger) {
		List<String> lines = new ArrayList<>();
		for (PrimaryOutage outage : this.outages) {
			lines.add(outage.kind() + " from " + outage.start() + " to " + outage.end() + " ms, every primary ok again "
					+ ((outage.back() >= 0) ? "at " + outage.back() + " ms"
							: "not within " + RECOVERY_TIMEOUT.toSeconds() + " s"));
		}
		long twice = ledger.successes.values().stream().filter((count) -> count.get() > 1).count();
		lines.add("tasks handled more than once: " + twice + " (at-least-once, not a violation)");
		lines.add("faults and cluster states:");
		this.timeline.of(Timeline.FAULT).forEach((event) -> lines.add("  " + event));
		return lines;
	}

	@Override
	public String seedsProperty() {
		return ClusterHarnessTests.SEEDS_PROPERTY;
	}

	@Override
	public void close() {
		this.closed = true;
		// A node left stopped would only die of SIGKILL.
		this.pids.forEach((pid) -> {
			try {
				signal("CONT", pid);
			}
			catch (RuntimeException ex) {
				// Gone already.
			}
		});
		if (this.stateWatch != null) {
			try {
				this.stateWatch.join(2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.watches.forEach(StatefulRedisConnection::close);
		this.admins.forEach(StatefulRedisConnection::close);
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		if (this.checker != null) {
			this.checker.destroy();
		}
		this.cluster.close();
	}

	/**
	 * A primary frozen or killed, in ms from the run's start.
	 * @param start when it stopped
	 * @param end when it resumed or restarted
	 * @param back when every primary reported {@code cluster_state:ok} again, or -1 if not in time
	 */
	private record PrimaryOutage(FaultKind kind, long start, long end, long back) {

	}

}
