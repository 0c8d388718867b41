package dev.baton.autoconfigure.queue;

import dev.baton.queue.redis.PartitionCountChangeException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up that failed because a queue's partition count changed while it held tasks. */
final class PartitionCountChangeFailureAnalyzer extends AbstractFailureAnalyzer<PartitionCountChangeException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PartitionCountChangeException cause) {
		String property = "baton.queue.queues." + cause.getQueue() + ".partitions";
		return new FailureAnalysis(cause.getMessage(), "Set '" + property + "' back to "
				+ cause.getStoredPartitions() + " until the queue is empty, then change it; or schedule into a new "
				+ "queue with " + cause.getConfiguredPartitions() + " partitions while this one drains. Every "
				+ "instance of the queue must use the same count. The delayed-tasks guide describes both "
				+ "(\"Partitioned queues\").", cause);
	}

}
