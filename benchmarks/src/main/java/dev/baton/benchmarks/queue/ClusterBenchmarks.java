package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import dev.baton.benchmarks.BenchmarkSettings;
import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.RedisProbe.Snapshot;
import dev.baton.benchmarks.support.Table;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;

/**
 * One queue on a local Redis Cluster of 3 primaries, in 1, 3 and 12 partitions: the burst drain of
 * the queue scenarios (tasks stored with {@code scheduleAll}, all due at one instant, consumed by
 * one Baton application with a no-op {@code @DelayedTask} handler and the default settings), with
 * where the tasks were stored and how the shards share Redis's CPU. The shards run on the same
 * cores as the application, so the figures show the cost and the spread, not a cluster's capacity.
 */
public final class ClusterBenchmarks {

	private static final int[] PARTITIONS = { 1, 3, 12 };

	private ClusterBenchmarks() {
	}

	/**
	 * Runs the drain for each partition count.
	 * @param settings the options; {@code tasks}, {@code runs}, {@code consumers}, {@code batch-size},
	 * {@code drain-timeout} and {@code wait-scale} apply
	 * @return the result table
	 */
	public static Table run(BenchmarkSettings settings) {
		Table table = new Table("Queue on a 3-primary Redis Cluster, drain: " + settings.tasks()
				+ " tasks due at one instant, " + settings.consumers() + " consumer threads",
				List.of("tasks/s", "drain s", "missing", "duplicates", "Redis CPU µs/task (store, claim, ack)",
						"scripts/task", "Redis cmds/task", "busiest primary's share of Redis CPU %"));
		try (LocalRedisCluster cluster = RedisServers.startCluster(3)) {
			List<RedisProbe> primaries = cluster.primaries()
				.stream()
				.map((primary) -> new RedisProbe("redis://" + primary.host() + ":" + primary.port()))
				.toList();
			try {
				for (int partitions : PARTITIONS) {
					List<Metrics> runs = new ArrayList<>();
					List<String> placements = new ArrayList<>();
					for (int run = 0; run < settings.runs(); run++) {
						Metrics metrics = drain(cluster, primaries, partitions, settings, placements);
						System.out.println("  cluster, " + partitions + " partition(s), run " + run + ": " + metrics);
						runs.add(metrics);
					}
					table.add(partitions + " partition(s)", Metrics.medians(runs),
							"tasks/s per run " + Metrics.spread(runs, "tasks/s") + "; tasks stored per primary "
									+ placements.get(0));
				}
			}
			finally {
				primaries.forEach(RedisProbe::close);
			}
		}
		return table;
	}

	private static Metrics drain(LocalRedisCluster cluster, List<RedisProbe> primaries, int partitions,
			BenchmarkSettings settings, List<String> placements) {
		primaries.forEach(RedisProbe::flushAll);
		int tasks = settings.tasks();
		TaskTracker tracker = new TaskTracker(tasks);
		QueueClient client = BatonQueueClient
			.withSettings("spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()),
					"baton.queue.queues." + BatonQueueClient.QUEUE + ".partitions=" + partitions)
			.connect(url(cluster.primaries().get(0)), BatonQueueClient.QUEUE, settings.consumers(), tracker);
		try {
			List<Snapshot> before = snapshots(primaries);
			// Stored in about a second per 20,000 tasks on these cores, then due at once.
			long dueNanos = System.nanoTime() + settings.scaled(Duration.ofSeconds(1)).toNanos()
					+ TimeUnit.MILLISECONDS.toNanos(tasks / 20);
			for (int first = 0; first < tasks; first += settings.batchSize()) {
				int to = Math.min(tasks, first + settings.batchSize());
				List<QueueClient.Task> batch = new ArrayList<>(to - first);
				for (int id = first; id < to; id++) {
					batch.add(new QueueClient.Task(String.valueOf(id), TaskTracker.payload(id, 0),
							Duration.ofNanos(Math.max(0, dueNanos - System.nanoTime()))));
				}
				client.scheduleAll(batch);
			}
			placements.add(primaries.stream()
				// ":due", not "due": a remembered reply's key ends in its call id, which can end in "due".
				.map((primary) -> Long.toString(primary.zcardOfKeys("*:due")))
				.collect(Collectors.joining(" / ")));
			boolean finished = tracker.awaitAll(dueNanos + settings.drainTimeout().toNanos());
			long end = finished ? tracker.lastHandledNanos() : System.nanoTime();
			// The last acknowledgements land before the counters are read
			LockSupport.parkNanos(settings.scaled(Duration.ofSeconds(1)).toNanos());
			List<Snapshot> after = snapshots(primaries);
			double total = 0;
			double busiest = 0;
			long scripts = 0;
			long commands = 0;
			for (int i = 0; i < primaries.size(); i++) {
				double cpu = after.get(i).cpuSecondsSince(before.get(i));
				total += cpu;
				busiest = Math.max(busiest, cpu);
				Map<String, Long> calls = after.get(i).callsSince(before.get(i));
				scripts += calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
				commands += after.get(i).commandsSince(before.get(i));
			}
			int handled = Math.max(1, tracker.handled());
			return new Metrics().put("tasks/s", tracker.handled() / ((end - dueNanos) / 1e9))
				.put("drain s", (end - dueNanos) / 1e9)
				.put("missing", tracker.missing())
				.put("duplicates", tracker.duplicates())
				.put("Redis CPU µs/task (store, claim, ack)", total * 1e6 / handled)
				.put("scripts/task", (double) scripts / handled)
				.put("Redis cmds/task", (double) commands / handled)
				.put("busiest primary's share of Redis CPU %", 100 * busiest / Math.max(total, 1e-9));
		}
		finally {
			client.close();
		}
	}

	private static List<Snapshot> snapshots(List<RedisProbe> primaries) {
		return primaries.stream().map(RedisProbe::snapshot).toList();
	}

	private static String url(LocalRedisServer server) {
		return String.format(Locale.ROOT, "redis://%s:%d", server.host(), server.port());
	}

}
