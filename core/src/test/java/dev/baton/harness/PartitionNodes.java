package dev.baton.harness;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

import dev.baton.queue.redis.RedisDelayQueues;

/**
 * Where the harness queue's tasks live: how many partitions the queue has, and which Redis
 * Cluster primary serves each, by index ({@code -1} on a topology with one server). A task's
 * partition is the CRC-32 of its id modulo the partitions, as the guide documents.
 */
final class PartitionNodes {

	/** One partition, on the only server. */
	static final PartitionNodes SINGLE = new PartitionNodes(new int[] { -1 });

	private final int[] nodeOfPartition;

	/**
	 * @param nodeOfPartition the primary serving each partition, by partition
	 */
	PartitionNodes(int[] nodeOfPartition) {
		this.nodeOfPartition = nodeOfPartition.clone();
	}

	int partitions() {
		return this.nodeOfPartition.length;
	}

	/** The primary that serves the task's partition, or {@code -1} on a topology with one server. */
	int nodeOf(String id) {
		if (this.nodeOfPartition.length == 1) {
			return nodeOfPartition(0);
		}
		CRC32 crc = new CRC32();
		crc.update(id.getBytes(StandardCharsets.UTF_8));
		return nodeOfPartition((int) (crc.getValue() % this.nodeOfPartition.length));
	}

	/** The primary that serves the partition, or {@code -1} on a topology with one server. */
	int nodeOfPartition(int partition) {
		return this.nodeOfPartition[partition];
	}

	/** The key of a partition's in-flight set. */
	static String inFlightKey(int partition) {
		return partitionKey(partition, "inflight");
	}

	/** The key of a partition's due set: its owner answers for it, the other primaries redirect. */
	static String dueKey(int partition) {
		return partitionKey(partition, "due");
	}

	private static String partitionKey(int partition, String suffix) {
		return RedisDelayQueues.queueKey(RedisDelayQueues.DEFAULT_KEY_PREFIX, HarnessInstance.QUEUE, partition, suffix);
	}

	String describe() {
		if (this.nodeOfPartition.length == 1) {
			return "one partition";
		}
		StringBuilder text = new StringBuilder(this.nodeOfPartition.length + " partitions:");
		for (int partition = 0; partition < this.nodeOfPartition.length; partition++) {
			text.append(' ').append(partition).append("->primary-").append(this.nodeOfPartition[partition]);
		}
		return text.toString();
	}

}
