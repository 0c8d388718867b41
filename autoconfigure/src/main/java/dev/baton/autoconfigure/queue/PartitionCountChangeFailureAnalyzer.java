package dev.baton.autoconfigure.queue;

import dev.baton.queue.redis.PartitionCountChangeException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up that failed because a queue is configured with a partition count other than the recorded one. */
final class PartitionCountChangeFailureAnalyzer extends AbstractFailureAnalyzer<PartitionCountChangeException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PartitionCountChangeException cause) {
		String property = "baton.queue.queues." + cause.getQueue() + ".partitions";
		return new FailureAnalysis(cause.getMessage(), "Set '" + property + "' back to "
				+ cause.getStoredPartitions() + ", the count recorded in Redis, which every instance of the queue "
				+ "must use. To change the count, empty the queue and call RedisDelayQueues.changePartitions, then "
				+ "deploy the new count; or schedule into a new queue with " + cause.getConfiguredPartitions()
				+ " partitions while this one drains. The delayed-tasks guide describes both (\"Partitioned "
				+ "queues\").", cause);
	}

}
