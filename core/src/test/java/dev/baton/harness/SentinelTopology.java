package dev.baton.harness;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Sentinel set without persistence (a primary, a replica, three sentinels; see
 * {@link RedisServers#startSentinel()}) that the instances find through the sentinels, following
 * their switches as the application does. Its faults are {@code SENTINEL FAILOVER} and
 * {@code kill -9} of the primary; each waits until the set has a replica in sync again. Nothing
 * is excused as lost with Redis's data (unless no replica was promoted after a kill and the
 * primary came back empty): a failover may run tasks twice, counted per failover in the totals,
 * but not lose one, and a lock has two holders only if Redis lost its key, which a renewed holder
 * is told of. The sentinels' events go to the timeline. A lock instance in a child JVM finds the
 * primary through the sentinels too, and the schedule pauses it as on a standalone Redis.
 */
final class SentinelTopology implements HarnessTopology, ServerFaults {

	/** How much later than scheduled a fault may start, waiting for a replica in sync. */
	private static final long LATE_MILLIS = 8000;

	/** No fault starts later than this before the end of the fault phase. */
	private static final long QUIET_END_MILLIS = 1500;

	/** Sentinel events shown in the timeline, once each however many sentinels publish them. */
	private static final Set<String> EVENTS = Set.of("+sdown", "-sdown", "+odown", "-odown", "+try-failover",
			"+failover-state-send-slaveof-noone", "+promoted-slave", "+switch-master", "+convert-to-slave",
			"+failover-end", "+failover-end-for-timeout", "-failover-abort-not-elected",
			"-failover-abort-no-good-slave", "-failover-abort-slave-timeout", "+reboot");

	private final Timeline timeline;

	private final LocalRedisSentinel sentinel = RedisServers.startSentinel();

	private final LettuceConnectionFactory checker;

	private final PrimarySwitchWatch checkerWatch;

	private final RedisClient client = RedisClient.create();

	private final List<StatefulRedisPubSubConnection<String, String>> subscriptions = new ArrayList<>();

	private final List<StatefulRedisSentinelConnection<String, String>> sentinels = new ArrayList<>();

	/** Event to when it was last recorded: the sentinels publish the same events within a second or so. */
	private final Map<String, Long> seen = new ConcurrentHashMap<>();

	private final List<Failover> failovers = new CopyOnWriteArrayList<>();

	private volatile long lengthMillis = Long.MAX_VALUE;

	/** Windows in which the set lost its data: a killed primary that came back empty, no replica promoted. */
	private final List<long[]> lostData = new CopyOnWriteArrayList<>();

	SentinelTopology(Timeline timeline) {
		this.timeline = timeline;
		this.checker = HarnessInstance.connectionFactory(configuration(), null);
		this.checkerWatch = PrimarySwitchWatch.of(this.checker).orElseThrow();
		this.checkerWatch.start();
		for (LocalRedisServer node : this.sentinel.sentinels()) {
			RedisURI uri = RedisURI.builder().withHost(node.host()).withPort(node.port())
				.withTimeout(Duration.ofSeconds(1)).build();
			this.sentinels.add(this.client.connectSentinel(uri));
			StatefulRedisPubSubConnection<String, String> events = this.client.connectPubSub(uri);
			events.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String pattern, String channel, String message) {
					event(node.port(), channel, message);
				}

			});
			events.sync().psubscribe("*");
			this.subscriptions.add(events);
		}
	}

	private RedisSentinelConfiguration configuration() {
		return new RedisSentinelConfiguration(this.sentinel.masterName(), Set.copyOf(this.sentinel.sentinelNodes()));
	}

	@Override
	public FaultSchedule schedule(long seed, int instances, long lengthMillis) {
		this.lengthMillis = lengthMillis;
		return FaultSchedule.generateSentinel(seed, instances, lengthMillis);
	}

	@Override
	public List<String> childRedis() {
		List<String> redis = new ArrayList<>(List.of("sentinel", this.sentinel.masterName()));
		redis.addAll(this.sentinel.sentinelNodes());
		return redis;
	}

	@Override
	public Link connect(int instance) {
		return new Link(configuration(), InstanceProxies.none());
	}

	@Override
	public LettuceConnectionFactory checker() {
		return this.checker;
	}

	@Override
	public ServerFaults serverFaults() {
		return this;
	}

	/**
	 * None, unless the sentinels promoted no replica after a kill and the primary came back empty:
	 * a failover or a kill with a replica in sync loses nothing Baton wrote, since Baton holds its
	 * writes from the promotion until the switch.
	 */
	@Override
	public List<long[]> dataLoss(FaultInjector faults) {
		return this.lostData;
	}

	/**
	 * A primary kill, from the kill until the sentinels switched (or, without a promotion, until
	 * the node came back); a failover from the replica's promotion until the switch, in which
	 * Baton holds its calls: it explains only deliveries claimed before the promotion, since what
	 * Baton claims afterwards goes to the new primary and is not lost.
	 */
	@Override
	public List<Outages.Window> outages() {
		List<Outages.Window> windows = new ArrayList<>();
		for (Failover failover : this.failovers) {
			if (failover.kind == FaultKind.PRIMARY_KILL) {
				windows.add(new Outages.Window(-1, failover.atMillis,
						(failover.switchedAt >= 0) ? failover.switchedAt : failover.restartedAt));
			}
			else if (failover.promotedAt >= 0) {
				windows.add(new Outages.Window(-1, failover.promotedAt,
						(failover.switchedAt >= 0) ? failover.switchedAt : Long.MAX_VALUE, true));
			}
		}
		return windows;
	}

	@Override
	public void apply(Fault fault, LongConsumer sleepUntil) {
		long latest = Math.max(fault.atMillis(),
				Math.min(fault.atMillis() + LATE_MILLIS, this.lengthMillis - QUIET_END_MILLIS));
		if (!awaitReady(latest)) {
			throw new IllegalStateException("the set had no replica in sync " + (latest - fault.atMillis())
					+ " ms after the fault's time: " + describeSet());
		}
		int primary = primaryPort();
		Failover failover = new Failover(fault.kind(), this.timeline.now(), primary);
		this.failovers.add(failover);
		try {
			apply(fault, failover, sleepUntil);
		}
		catch (RuntimeException ex) {
			// Not applied: tasks handled again are not its doing.
			this.failovers.remove(failover);
			throw ex;
		}
	}

	private void apply(Fault fault, Failover failover, LongConsumer sleepUntil) {
		int primary = failover.oldPrimary;
		switch (fault.kind()) {
			case FAILOVER -> {
				this.timeline.record(Timeline.FAULT, "SENTINEL FAILOVER of primary :" + primary);
				this.sentinel.failover();
				this.timeline.record(Timeline.FAULT, "every sentinel names :" + primaryPort() + " as primary");
			}
			case PRIMARY_KILL -> {
				LocalRedisServer node = this.sentinel.dataNodes().stream()
					.filter((data) -> data.port() == primary)
					.findFirst()
					.orElseThrow();
				node.kill();
				this.timeline.record(Timeline.FAULT, "primary :" + primary + " killed (kill -9)");
				long killedAt = this.timeline.now();
				long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while (primaryPort() == primary && System.nanoTime() < deadline) {
					Pause.millis(50);
				}
				int newPrimary = primaryPort();
				this.timeline.record(Timeline.FAULT, "sentinel names :" + newPrimary + " as primary");
				sleepUntil.accept(fault.endMillis());
				node.restart();
				failover.restartedAt = this.timeline.now();
				if (newPrimary == primary) {
					// The set lost its data, as a standalone Redis killed: that excuses what it forgot.
					this.lostData.add(new long[] { killedAt, this.timeline.now() });
					this.timeline.record(Timeline.FAULT, "killed node :" + primary + " restarted, empty, as the"
							+ " primary still: the sentinels promoted no replica in 20 s, the set's data is lost");
					return;
				}
				// As an operator would restart it: as a replica of the new primary, not as an empty primary.
				try (StatefulRedisConnection<String, String> connection = connect(node)) {
					connection.sync().replicaof(node.host(), newPrimary);
				}
				this.timeline.record(Timeline.FAULT, "killed node :" + primary + " restarted, empty, as a replica of :"
						+ newPrimary);
			}
			default -> throw new IllegalArgumentException(fault.kind() + " is no fault of a Sentinel set");
		}
	}

	/**
	 * Waits until every sentinel names the same primary, none is failing over, each knows a replica
	 * it would promote (not down or disconnected), and that node is a replica of the primary in
	 * sync: else a failover would fail, or promote a node that is not a copy of the primary.
	 */
	private boolean awaitReady(long untilMillis) {
		while (!isReady()) {
			if (this.timeline.now() >= untilMillis) {
				return false;
			}
			Pause.millis(100);
		}
		return true;
	}

	private boolean isReady() {
		try {
			int primary = primaryPort();
			for (StatefulRedisSentinelConnection<String, String> connection : this.sentinels) {
				RedisSentinelCommands<String, String> sentinel = connection.sync();
				if (port(sentinel) != primary
						|| sentinel.master(this.sentinel.masterName()).get("flags").contains("failover")) {
					return false;
				}
				if (sentinel.replicas(this.sentinel.masterName()).stream()
					.noneMatch((replica) -> "slave".equals(replica.get("flags")))) {
					return false;
				}
			}
			return this.sentinel.dataNodes().stream()
				.filter((node) -> node.port() != primary)
				.map(this::replicationOf)
				.anyMatch((info) -> info.contains("role:slave") && info.contains("master_port:" + primary + "\r\n")
						&& info.contains("master_link_status:up"));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private String describeSet() {
		try {
			return "primary :" + primaryPort() + "; " + this.sentinel.dataNodes().stream()
				.map((node) -> ":" + node.port() + " " + replicationOf(node).lines()
					.filter((line) -> line.startsWith("role:") || line.startsWith("master_link_status:"))
					.collect(Collectors.joining(" ")))
				.collect(Collectors.joining("; "));
		}
		catch (RuntimeException ex) {
			return "not known: " + ex;
		}
	}

	private String replicationOf(LocalRedisServer node) {
		try (StatefulRedisConnection<String, String> connection = connect(node)) {
			return connection.sync().info("replication");
		}
		catch (RuntimeException ex) {
			return "unreachable";
		}
	}

	private StatefulRedisConnection<String, String> connect(LocalRedisServer node) {
		return this.client.connect(RedisURI.builder().withHost(node.host()).withPort(node.port())
			.withTimeout(Duration.ofSeconds(1)).build());
	}

	private int primaryPort() {
		return port(this.sentinels.get(0).sync());
	}

	private int port(RedisSentinelCommands<String, String> sentinel) {
		return ((InetSocketAddress) sentinel.getMasterAddrByName(this.sentinel.masterName())).getPort();
	}

	private void event(int sentinelPort, String channel, String message) {
		if (!EVENTS.contains(channel)) {
			return;
		}
		long now = this.timeline.now();
		Long last = this.seen.put(channel + " " + message, now);
		if (last != null && now - last < 3000) {
			return;
		}
		this.timeline.record(Timeline.FAULT, "sentinel :" + sentinelPort + " " + channel + " " + message);
		@Nullable Failover current = this.failovers.isEmpty() ? null : this.failovers.get(this.failovers.size() - 1);
		if (channel.equals("+failover-state-send-slaveof-noone") && (current == null || current.promotedAt >= 0)) {
			// A failover the harness did not ask for, or a second one.
			current = new Failover(null, this.timeline.now(), -1);
			this.failovers.add(current);
		}
		if (current == null) {
			return;
		}
		if (channel.equals("+failover-state-send-slaveof-noone") && current.promotedAt < 0) {
			current.promotedAt = this.timeline.now();
		}
		if (channel.equals("+switch-master") && current.switchedAt < 0) {
			current.switchedAt = this.timeline.now();
			current.switchedTo = message.substring(message.lastIndexOf(' ') + 1);
		}
	}

	/**
	 * Per failover, the tasks that ran (successfully) again after it: each task handled more than
	 * once counts for the last failover before its second successful run.
	 */
	@Override
	public List<String> totals(TaskLedger ledger) {
		Map<Failover, List<String>> twice = new LinkedHashMap<>();
		this.failovers.forEach((failover) -> twice.put(failover, new ArrayList<>()));
		List<String> withoutFailover = new ArrayList<>();
		ledger.successes.forEach((id, count) -> {
			if (count.get() < 2) {
				return;
			}
			long again = ledger.runsOf(id).stream()
				.filter(TaskLedger.Run::succeeded)
				.map(TaskLedger.Run::startMillis)
				.sorted()
				.skip(1)
				.findFirst()
				.orElseThrow();
			this.failovers.stream()
				.filter((failover) -> failover.atMillis <= again)
				.max(Comparator.comparingLong((failover) -> failover.atMillis))
				.map(twice::get)
				.orElse(withoutFailover)
				.add(id + "@" + again);
		});
		List<String> lines = new ArrayList<>();
		twice.forEach((failover, ids) -> lines.add(failover.describe() + ": " + ids.size()
				+ " tasks handled again after it (at-least-once, not a violation)" + sample(ids)));
		lines.add("tasks handled more than once before any failover: " + withoutFailover.size() + sample(withoutFailover));
		lines.add("faults and sentinel events:");
		this.timeline.of(Timeline.FAULT).forEach((event) -> lines.add("  " + event));
		return lines;
	}

	private static String sample(List<String> ids) {
		return ids.isEmpty() ? "" : " " + ids.stream().sorted().limit(12).toList() + ((ids.size() > 12) ? "..." : "");
	}

	@Override
	public String seedsProperty() {
		return SentinelHarnessTests.SEEDS_PROPERTY;
	}

	@Override
	public void close() {
		this.subscriptions.forEach(StatefulRedisPubSubConnection::close);
		this.sentinels.forEach(StatefulRedisSentinelConnection::close);
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.checkerWatch.close();
		this.checker.destroy();
		this.sentinel.close();
	}

	/** A fault of the set, or a failover the sentinels made of their own, with its promotion and switch. */
	private static final class Failover {

		private final @Nullable FaultKind kind;

		private final long atMillis;

		private final int oldPrimary;

		private volatile long promotedAt = -1;

		private volatile long switchedAt = -1;

		private volatile String switchedTo = "";

		/** When a killed primary was restarted, ms from the run's start. */
		private volatile long restartedAt = Long.MAX_VALUE;

		Failover(@Nullable FaultKind kind, long atMillis, int oldPrimary) {
			this.kind = kind;
			this.atMillis = atMillis;
			this.oldPrimary = oldPrimary;
		}

		String describe() {
			return ((this.kind != null) ? this.kind + " of :" + this.oldPrimary : "failover the sentinels began")
					+ " at " + this.atMillis + " ms, replica promoted at "
					+ ((this.promotedAt >= 0) ? this.promotedAt + " ms" : "-") + ", switch to :" + this.switchedTo
					+ " at " + ((this.switchedAt >= 0) ? this.switchedAt + " ms" : "-");
		}

	}

}
