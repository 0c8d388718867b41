package dev.baton.queue.listener;

import java.time.Duration;

/**
 * Where containers report lateness (the handling timer comes from the handling's observation);
 * the Micrometer implementation lives in {@link MicrometerHandlerMetrics} so that Micrometer
 * stays optional.
 */
@FunctionalInterface
interface HandlerMetrics {

	/** Metrics that record nothing. */
	HandlerMetrics NONE = (queue, lateness) -> {
	};

	/** Record how long after its due time a task started to be handled. */
	void lateness(String queue, Duration lateness);

}
