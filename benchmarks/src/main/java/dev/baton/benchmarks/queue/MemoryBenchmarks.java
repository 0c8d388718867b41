package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.benchmarks.support.Connections;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.Table;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.redis.RedisDelayQueues;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redis memory per waiting task (issue 30): for each implementation, on an emptied server,
 * {@code used_memory} before and after one producer schedules N tasks with their own ids
 * ({@code task-<n>}) and a P-byte JSON payload ({@code {"data":"task-<n>xxx..."}}), due in an
 * hour; then what each key holds ({@code MEMORY USAGE key SAMPLES 0}) and its encoding.
 */
public final class MemoryBenchmarks {

	/** The workloads of issue 30. */
	public static final List<Scenario> SCENARIOS = List.of(new Scenario(200_000, 64), new Scenario(200_000, 1024),
			new Scenario(1_000_000, 64));

	private static final Duration DUE_IN = Duration.ofHours(1);

	/** The pause before {@code used_memory} is read, see {@link #measured}. */
	private static final Duration SETTLE = Duration.ofSeconds(2);

	private static final int BATCH = 1000;

	private static final String QUEUE = "bench";

	private static final int FORMAT_1_HEADER = 35;

	private static final List<Implementation> IMPLEMENTATIONS = List.of(
			new Implementation("baton", "scheduleAll, 1000 a call", "baton:q:*", MemoryBenchmarks::fillBaton),
			new Implementation("redisson", "RDelayedQueue.offerAsync, 1000 in flight", "redisson*",
					MemoryBenchmarks::fillRedisson),
			new Implementation("floor", "pipelined ZADD due id + HSET tasks id payload, no Lua", "floor:*",
					MemoryBenchmarks::fillFloor));

	private MemoryBenchmarks() {
	}

	/**
	 * Runs the scenarios, flushing the server before each implementation.
	 * @param redisUrl the server, which is flushed
	 * @param probe the harness's connection to it
	 * @param scenarios the workloads
	 * @return the per-task table, then a table of the keys per scenario
	 */
	public static List<Table> run(String redisUrl, RedisProbe probe, List<Scenario> scenarios) {
		return run(redisUrl, probe, scenarios, SETTLE);
	}

	/**
	 * Runs the scenarios with another pause before {@code used_memory} is read than the 2 s of a
	 * real run: for smoke runs, whose figures mean nothing.
	 * @param redisUrl the server, which is flushed
	 * @param probe the harness's connection to it
	 * @param scenarios the workloads
	 * @param settle the pause after the writes
	 * @return the per-task table, then a table of the keys per scenario
	 */
	public static List<Table> run(String redisUrl, RedisProbe probe, List<Scenario> scenarios, Duration settle) {
		Table perTask = new Table("Redis memory per waiting task: used_memory after minus before, over the tasks",
				List.of("tasks", "payload B", "MB", "B/task", "B/task beyond payload"));
		List<Table> keyTables = new ArrayList<>();
		for (Scenario scenario : scenarios) {
			Table keys = new Table("Keys after " + scenario + " (MEMORY USAGE key SAMPLES 0)",
					List.of("B/task", "MB"));
			for (Implementation implementation : IMPLEMENTATIONS) {
				probe.flushAll();
				long start = System.nanoTime();
				Measurement measurement = implementation.filler().fill(redisUrl, probe, scenario, settle);
				long seconds = (System.nanoTime() - start) / 1_000_000_000;
				if (measurement.stored() != scenario.tasks()) {
					throw new IllegalStateException(implementation.name() + " stored " + measurement.stored()
							+ " of " + scenario.tasks() + " tasks");
				}
				long before = measurement.before();
				long after = measurement.after();
				double perTaskBytes = (double) (after - before) / scenario.tasks();
				System.out.printf(Locale.ROOT, "%s, %s: %d -> %d bytes used, %.1f B/task (%d s to schedule)%n",
						implementation.name(), scenario, before, after, perTaskBytes, seconds);
				perTask.add(implementation.name(),
						List.of(String.format(Locale.ROOT, "%,d", scenario.tasks()),
								String.valueOf(scenario.payloadBytes()), megabytes(after - before),
								String.format(Locale.ROOT, "%.0f", perTaskBytes),
								String.format(Locale.ROOT, "%.0f", perTaskBytes - scenario.payloadBytes())),
						implementation.how());
				// Leaves out the replies the last seconds' schedule calls remember (they expire in seconds).
				for (String key : probe.keys(implementation.keys()).stream().filter((key) -> !key.contains(":reply:")).toList()) {
					long bytes = probe.memoryUsage(key);
					keys.add(implementation.name() + " `" + key + "`",
							List.of(String.format(Locale.ROOT, "%.0f", (double) bytes / scenario.tasks()),
									megabytes(bytes)),
							probe.typeAndEncoding(key));
				}
			}
			keyTables.add(keys);
		}
		probe.flushAll();
		List<Table> tables = new ArrayList<>();
		tables.add(perTask);
		tables.addAll(keyTables);
		return tables;
	}

	private static String megabytes(long bytes) {
		return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
	}

	/** The id of the n-th task. */
	private static String id(int n) {
		return "task-" + n;
	}

	/** The string field of the n-th task's payload, padded so that its JSON has the scenario's size. */
	private static String data(int n, Scenario scenario) {
		String id = id(n);
		return id + "x".repeat(Math.max(0, scenario.payloadBytes() - Body.OVERHEAD - id.length()));
	}

	private static String json(int n, Scenario scenario) {
		return "{\"data\":\"" + data(n, scenario) + "\"}";
	}

	private static Measurement fillBaton(String redisUrl, RedisProbe probe, Scenario scenario,
			Duration settle) {
		RedisURI uri = RedisURI.create(redisUrl);
		LettuceConnectionFactory connectionFactory = Connections.standalone(uri.getHost(), uri.getPort());
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.build()) {
			DelayQueue<Body> queue = queues.get(QUEUE, Body.class);
			queue.stats(); // connects
			long before = probe.usedMemory();
			List<NewTask<Body>> batch = new ArrayList<>(BATCH);
			for (int n = 0; n < scenario.tasks(); n++) {
				batch.add(NewTask.of(id(n), new Body(data(n, scenario)), DUE_IN));
				if (batch.size() == BATCH || n == scenario.tasks() - 1) {
					if (queue.scheduleAll(batch).size() != batch.size()) {
						throw new IllegalStateException("Some tasks were already scheduled");
					}
					batch.clear();
				}
			}
			// Storage format 1 keeps the meta in front of the payload: a byte, 32 of numbers, 2 of trace length.
			long stored = probe.hashValueLength("baton:q:{" + QUEUE + "}:tasks", id(0));
			if (stored != scenario.payloadBytes() + FORMAT_1_HEADER) {
				throw new IllegalStateException("Baton stored a value of " + stored + " bytes, not "
						+ (scenario.payloadBytes() + FORMAT_1_HEADER));
			}
			return measured(probe, before, "baton:q:*:due", settle);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@SuppressWarnings("deprecation") // RDelayedQueue is the implementation under test
	private static Measurement fillRedisson(String redisUrl, RedisProbe probe, Scenario scenario,
			Duration settle) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress(redisUrl);
		RedissonClient redisson = Redisson.create(config);
		RDelayedQueue<String> delayed = redisson.getDelayedQueue(redisson.getBlockingQueue(QUEUE));
		try {
			delayed.size(); // connects
			long before = probe.usedMemory();
			List<CompletableFuture<Void>> pending = new ArrayList<>(BATCH);
			for (int n = 0; n < scenario.tasks(); n++) {
				pending.add(delayed.offerAsync(json(n, scenario), DUE_IN.toMillis(), TimeUnit.MILLISECONDS)
					.toCompletableFuture());
				if (pending.size() == BATCH) {
					CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
					pending.clear();
				}
			}
			CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
			return measured(probe, before, "redisson_delay_queue_timeout:*", settle);
		}
		finally {
			redisson.shutdown();
		}
	}

	private static Measurement fillFloor(String redisUrl, RedisProbe probe, Scenario scenario,
			Duration settle) {
		RedisClient client = RedisClient.create(redisUrl);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisAsyncCommands<String, String> commands = connection.async();
			long before = probe.usedMemory();
			connection.setAutoFlushCommands(false);
			double due = System.currentTimeMillis() + DUE_IN.toMillis();
			List<RedisFuture<?>> pending = new ArrayList<>(2 * BATCH);
			for (int n = 0; n < scenario.tasks(); n++) {
				pending.add(commands.zadd("floor:due", due, id(n)));
				pending.add(commands.hset("floor:tasks", id(n), json(n, scenario)));
				if (pending.size() == 2 * BATCH || n == scenario.tasks() - 1) {
					connection.flushCommands();
					if (!LettuceFutures.awaitAll(Duration.ofSeconds(60), pending.toArray(RedisFuture[]::new))) {
						throw new IllegalStateException("The floor's pipeline did not finish");
					}
					pending.clear();
				}
			}
			return measured(probe, before, "floor:due", settle);
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Reads {@code used_memory} once the writes are done, two seconds ({@code settle}) later, when
	 * the server's cron has shrunk the producer's query buffer (counted in {@code used_memory} too), with the
	 * producer still connected, as it was for the figure before.
	 */
	private static Measurement measured(RedisProbe probe, long before, String dueKeys, Duration settle) {
		try {
			Thread.sleep(settle.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return new Measurement(before, probe.usedMemory(), probe.zcardOfKeys(dueKeys));
	}

	/**
	 * A workload.
	 * @param tasks the tasks scheduled
	 * @param payloadBytes the size of each payload's JSON
	 */
	public record Scenario(int tasks, int payloadBytes) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%,d tasks of %d B", this.tasks, this.payloadBytes);
		}

	}

	/**
	 * The payload: one string field, {@code {"data":"..."}}.
	 * @param data the field
	 */
	public record Body(String data) {

		/** The JSON around the field's text. */
		static final int OVERHEAD = "{\"data\":\"\"}".length();

	}

	private record Measurement(long before, long after, long stored) {
	}

	private record Implementation(String name, String how, String keys, Filler filler) {
	}

	@FunctionalInterface
	private interface Filler {

		/** Connects, reads {@code used_memory}, schedules the scenario's tasks and reads it again. */
		Measurement fill(String redisUrl, RedisProbe probe, Scenario scenario, Duration settle);

	}

}
