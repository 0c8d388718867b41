package dev.baton.queue.redis;

import java.util.function.Supplier;

import dev.baton.queue.QueueStats;

/**
 * Where the queues report what they do; the Micrometer implementation lives in
 * {@link MicrometerQueueMetrics} so that Micrometer stays optional.
 */
interface QueueMetrics extends AutoCloseable {

	/** Metrics that record nothing. */
	QueueMetrics NONE = new QueueMetrics() {

		@Override
		public void scheduled(String queue, int count) {
		}

		@Override
		public void watch(String queue, Supplier<QueueStats> stats) {
		}

	};

	/** Count tasks newly scheduled on a queue. */
	void scheduled(String queue, int count);

	/** Publish the depth of a queue, read from the given source when a metric is read. */
	void watch(String queue, Supplier<QueueStats> stats);

	/** Count tasks found in line without their data, and dropped. */
	default void inconsistent(String queue, int count) {
	}

	/** Count a task whose payload could not be read, dead-lettered when claimed. */
	default void unreadable(String queue) {
	}

	/** Count dead letters deleted by the queue's dead-letter retention. */
	default void deadLettersDeleted(String queue, int count) {
	}

	/** Stops what the metrics started. */
	@Override
	default void close() {
	}

}
