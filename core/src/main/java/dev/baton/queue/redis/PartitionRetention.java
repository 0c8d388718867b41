package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.List;

import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;

/**
 * A queue's dead-letter retention as each partition's claims apply it.
 *
 * @param argument what claim.lua reads: {@code maxCount|maxAgeMillis} per partition, or {@code ""}
 * to keep every dead letter
 * @param limits the limits that are set, as the log names them
 */
record PartitionRetention(String argument, String limits) {

	static PartitionRetention of(DeadLetterRetention retention, int partitions) {
		if (retention.keepsAll()) {
			return new PartitionRetention("", "");
		}
		// The partitions share the count, so that the queue keeps about maxCount dead letters in all.
		long perPartition = (retention.maxCount() + (long) partitions - 1) / partitions;
		List<String> limits = new ArrayList<>();
		if (retention.maxCount() < Integer.MAX_VALUE) {
			limits.add("max-count " + retention.maxCount());
		}
		if (retention.maxAge().compareTo(DelayQueue.MAX_DELAY) < 0) {
			limits.add("max-age " + retention.maxAge());
		}
		return new PartitionRetention(perPartition + "|" + retention.maxAge().toMillis(), String.join(", ", limits));
	}

}
