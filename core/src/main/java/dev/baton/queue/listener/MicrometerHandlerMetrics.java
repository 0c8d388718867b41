package dev.baton.queue.listener;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Handler metrics on Micrometer: the {@code baton.queue.lateness} timer (start of handling minus
 * due time) and the {@code baton.queue.stale} counter (deliveries Redis answered were stale, by
 * {@code operation}) and the {@code baton.queue.parked} counter (tasks delivered more than
 * {@code max-deliveries} times, dead-lettered or deleted without running), tagged with the queue
 * name.
 */
final class MicrometerHandlerMetrics implements HandlerMetrics {

	private final MeterRegistry registry;

	MicrometerHandlerMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void lateness(String queue, Duration lateness) {
		Timer.builder("baton.queue.lateness")
			.description("Time from a task's due time to the start of its handling")
			.tag("queue", queue)
			.register(this.registry)
			.record(lateness.isNegative() ? Duration.ZERO : lateness);
	}

	@Override
	public void stale(String queue, StaleOperation operation, int count) {
		Counter.builder("baton.queue.stale")
			.description("Deliveries Redis answered were stale: their task was redelivered to another consumer, "
					+ "settled or cancelled")
			.tag("queue", queue)
			.tag("operation", operation.tag())
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void parked(String queue) {
		Counter.builder("baton.queue.parked")
			.description("Tasks delivered more than max-deliveries times without succeeding, dead-lettered or deleted "
					+ "without running again")
			.tag("queue", queue)
			.register(this.registry)
			.increment();
	}

}
