package dev.baton.queue.redis;

import java.time.Duration;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import dev.baton.queue.QueueStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Queue metrics on Micrometer: the {@code baton.queue.scheduled} counter and the
 * {@code baton.queue.depth} gauge, both tagged with the queue name, the gauge also with the task
 * state. Depth is read from Redis at most once a second per queue, however often it is scraped.
 */
final class MicrometerQueueMetrics implements QueueMetrics {

	private static final Duration STATS_MAX_AGE = Duration.ofSeconds(1);

	private final MeterRegistry registry;

	MicrometerQueueMetrics(MeterRegistry registry) {
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
	public void watch(String queue, Supplier<QueueStats> stats) {
		CachedStats cached = new CachedStats(stats, STATS_MAX_AGE);
		depth(queue, "scheduled", cached, QueueStats::scheduled);
		depth(queue, "due", cached, QueueStats::due);
		depth(queue, "inflight", cached, QueueStats::inFlight);
		depth(queue, "dead", cached, QueueStats::dead);
	}

	private void depth(String queue, String state, CachedStats cached, ToDoubleFunction<QueueStats> count) {
		Gauge.builder("baton.queue.depth", cached, (source) -> count.applyAsDouble(source.get()))
			.description("Tasks in the queue by state")
			.tag("queue", queue)
			.tag("state", state)
			.register(this.registry);
	}

}
