package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.baton.benchmarks.support.Connections;
import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.Samples;
import dev.baton.benchmarks.support.Table;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.TaskPage;
import dev.baton.queue.redis.RedisDelayQueues;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The due window of a large queue: {@value #TASKS} waiting tasks with a 64-byte payload, due at
 * random over a day, in {@value #PARTITIONS} partitions; then pages of {@value #PAGE} from windows
 * of an hour at random places, and their counts, one after another.
 */
public final class DueWindowBenchmarks {

	private static final int TASKS = 1_000_000;

	private static final int PARTITIONS = 16;

	private static final int PAGE = 100;

	private static final int READS = 2_000;

	private DueWindowBenchmarks() {
	}

	/**
	 * Runs the benchmark.
	 * @param redisHost the server's host
	 * @param redisPort the server's port
	 * @return the table for {@code docs/benchmarks.md}
	 */
	public static Table run(String redisHost, int redisPort) {
		LettuceConnectionFactory connectionFactory = Connections.standalone(redisHost, redisPort);
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> PARTITIONS)
			.build()) {
			DelayQueue<String> queue = queues.get("window", String.class);
			Instant start = fill(queue);
			Random random = new Random(42);
			Samples pages = new Samples();
			Samples nextPages = new Samples();
			Samples counts = new Samples();
			for (int i = 0; i < READS; i++) {
				Instant from = start.plusSeconds(random.nextInt(23 * 3600));
				Instant to = from.plus(Duration.ofHours(1));
				long begin = System.nanoTime();
				TaskPage<String> page = queue.dueBetween(from, to, PAGE, null);
				pages.add((System.nanoTime() - begin) / 1_000);
				begin = System.nanoTime();
				queue.dueBetween(from, to, PAGE, page.nextPageToken());
				nextPages.add((System.nanoTime() - begin) / 1_000);
				begin = System.nanoTime();
				queue.countDueBetween(from, to);
				counts.add((System.nanoTime() - begin) / 1_000);
			}
			Table table = new Table("Due window of " + TASKS + " waiting tasks in " + PARTITIONS
					+ " partitions, windows of an hour (microseconds)", List.of("p50", "p99", "max"));
			table.add("first page of " + PAGE, metrics(pages), "");
			table.add("next page of " + PAGE, metrics(nextPages), "");
			table.add("count", metrics(counts), "");
			return table;
		}
		finally {
			connectionFactory.destroy();
		}
	}

	/** Schedules the tasks, due at random over the next day from an hour from now; returns that hour. */
	private static Instant fill(DelayQueue<String> queue) {
		Random random = new Random(7);
		String payload = "x".repeat(64);
		Duration offset = Duration.ofHours(1);
		List<NewTask<String>> batch = new ArrayList<>();
		for (int i = 0; i < TASKS; i++) {
			batch.add(NewTask.of("t-" + i, payload, offset.plusMillis(random.nextInt(24 * 3600 * 1000))));
			if (batch.size() == 1_000) {
				queue.scheduleAll(batch);
				batch.clear();
			}
		}
		return Instant.now().plus(offset);
	}

	private static Metrics metrics(Samples samples) {
		return new Metrics().put("p50", samples.percentile(50)).put("p99", samples.percentile(99)).put("max",
				samples.max());
	}

}
