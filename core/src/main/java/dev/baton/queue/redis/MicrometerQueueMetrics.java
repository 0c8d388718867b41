package dev.baton.queue.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.QueueStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Queue metrics on Micrometer: the {@code baton.queue.scheduled},
 * {@code baton.queue.inconsistent} and {@code baton.queue.dead-letters.deleted} counters and the
 * {@code baton.queue.depth} gauge, all tagged with the queue name, the gauge also with the task
 * state. Depth is read from Redis at most once a second per queue, however often it is scraped,
 * and a scrape waits at most 100 ms per queue for it, serving the last depth while Redis does not
 * answer.
 */
final class MicrometerQueueMetrics implements QueueMetrics {

	private static final Duration STATS_MAX_AGE = Duration.ofSeconds(1);

	/** How long a scrape waits for a refresh of one queue's stats before serving the last ones. */
	private static final Duration STATS_PATIENCE = Duration.ofMillis(100);

	/** Reads stats for the gauges, one queue at a time, so that scrapes never wait on Redis. */
	private final ExecutorService refresher;

	private final MeterRegistry registry;

	MicrometerQueueMetrics(BatonThreads threads, MeterRegistry registry) {
		this.refresher = threads.singleThread("baton-queue-stats");
		this.registry = registry;
	}

	@Override
	public void scheduled(String queue, int count) {
		Counter.builder("baton.queue.scheduled")
			.description("Tasks scheduled")
			.tag("queue", queue)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void inconsistent(String queue, int count) {
		Counter.builder("baton.queue.inconsistent")
			.description("Tasks found in line without their payload or details (evicted or lost keys), and dropped")
			.tag("queue", queue)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void unreadable(String queue) {
		Counter.builder("baton.queue.unreadable")
			.description("Tasks whose payload could not be read as the handler's type, dead-lettered when claimed")
			.tag("queue", queue)
			.register(this.registry)
			.increment();
	}

	@Override
	public void deadLettersDeleted(String queue, int count) {
		Counter.builder("baton.queue.dead-letters.deleted")
			.description("Dead letters deleted for good by the dead-letter retention the application set")
			.tag("queue", queue)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void watch(String queue, Supplier<QueueStats> stats) {
		CachedStats cached = new CachedStats(stats, STATS_MAX_AGE, STATS_PATIENCE, this.refresher);
		depth(queue, "scheduled", cached, QueueStats::scheduled);
		depth(queue, "due", cached, QueueStats::due);
		depth(queue, "inflight", cached, QueueStats::inFlight);
		depth(queue, "dead", cached, QueueStats::dead);
	}

	private void depth(String queue, String state, CachedStats cached, ToDoubleFunction<QueueStats> count) {
		Gauge.builder("baton.queue.depth", cached, (source) -> {
			QueueStats read = source.get();
			return (read != null) ? count.applyAsDouble(read) : Double.NaN;
		})
			.description("Tasks in the queue by state")
			.tag("queue", queue)
			.tag("state", state)
			// Nothing else references the stats holder: a weak reference would turn the gauge into NaN after a GC.
			.strongReference(true)
			.register(this.registry);
	}

	@Override
	public void close() {
		this.refresher.shutdownNow();
	}

}
