package dev.baton.queue.listener;

import java.time.Duration;

/**
 * Where containers report lateness, stale deliveries and tasks parked by the delivery limit (the handling timer comes from the
 * handling's observation); the Micrometer implementation lives in {@link MicrometerHandlerMetrics}
 * so that Micrometer stays optional.
 */
interface HandlerMetrics {

	/** Metrics that record nothing. */
	HandlerMetrics NONE = new HandlerMetrics() {

		@Override
		public void lateness(String queue, Duration lateness) {
		}

		@Override
		public void stale(String queue, StaleOperation operation, int count) {
		}

		@Override
		public void parked(String queue) {
		}

	};

	/** Record how long after its due time a task started to be handled. */
	void lateness(String queue, Duration lateness);

	/** Record deliveries that Redis answered were stale: their task was no longer theirs. */
	void stale(String queue, StaleOperation operation, int count);

	/** Count a task dead-lettered or deleted without running: it was delivered too often. */
	void parked(String queue);

	/** What a stale delivery was found by; the tag value of the stale counter. */
	enum StaleOperation {

		/** An extension of its visibility. */
		EXTEND("extend"),

		/** Its acknowledgement after the handler succeeded. */
		ACK("ack"),

		/**
		 * Its acknowledgement, dropped before it was sent: the handler succeeded but the delivery's
		 * visibility could not be extended in time (Redis unreachable), so the task may run again.
		 */
		ACK_DROPPED("ack-dropped");

		private final String tag;

		StaleOperation(String tag) {
			this.tag = tag;
		}

		String tag() {
			return this.tag;
		}

	}

}
