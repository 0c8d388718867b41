package dev.baton.queue.listener;

import java.time.Duration;

/**
 * Where containers report handling; the Micrometer implementation lives in
 * {@link MicrometerHandlerMetrics} so that Micrometer stays optional.
 */
interface HandlerMetrics {

	/** Metrics that record nothing. */
	HandlerMetrics NONE = new HandlerMetrics() {

		@Override
		public void lateness(String queue, Duration lateness) {
		}

		@Override
		public void handled(String queue, Outcome outcome, long nanos) {
		}

	};

	/** Record how long after its due time a task started to be handled. */
	void lateness(String queue, Duration lateness);

	/** Record one run of a handler and how it ended. */
	void handled(String queue, Outcome outcome, long nanos);

	/** How a run of a handler ended. */
	enum Outcome {

		/** The handler returned and the task was acknowledged. */
		SUCCESS,

		/** The handler threw and the task will be delivered again. */
		RETRY,

		/** The handler threw on its last attempt and the task was dead-lettered or deleted. */
		DEAD

	}

}
