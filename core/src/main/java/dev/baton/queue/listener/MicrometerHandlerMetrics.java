package dev.baton.queue.listener;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Handler metrics on Micrometer: the {@code baton.queue.lateness} timer (start of handling minus
 * due time) and the {@code baton.queue.handle} timer tagged with the {@code outcome}, both tagged
 * with the queue name.
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
	public void handled(String queue, Outcome outcome, long nanos) {
		Timer.builder("baton.queue.handle")
			.description("Time spent in @DelayedTask handlers")
			.tag("queue", queue)
			.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
	}

}
