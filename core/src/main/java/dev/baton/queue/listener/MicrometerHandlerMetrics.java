package dev.baton.queue.listener;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Handler metrics on Micrometer: the {@code baton.queue.lateness} timer (start of handling minus
 * due time), tagged with the queue name.
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

}
