package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The partitions of one queue, each in a hash slot of its own, and which of them holds a task: the
 * CRC-32 of the task's id, modulo the number of partitions. Placing by id keeps every operation on
 * one task (scheduling with deduplication, find, cancel, reschedule, redrive) on one partition, and
 * every instance and version computes the same place.
 */
final class QueuePartitions {

	private final List<QueueKeys> partitions;

	QueuePartitions(String prefix, String queue, int count) {
		if (count < 1 || count > RedisDelayQueues.MAX_PARTITIONS) {
			throw new IllegalArgumentException(
					"Partitions of queue '" + queue + "' must be between 1 and " + RedisDelayQueues.MAX_PARTITIONS + ", not " + count);
		}
		List<QueueKeys> keys = new ArrayList<>(count);
		for (int partition = 0; partition < count; partition++) {
			keys.add(QueueKeys.of(prefix, queue, partition));
		}
		this.partitions = List.copyOf(keys);
	}

	/** The keys of every partition, the first being those of the queue unpartitioned. */
	List<QueueKeys> all() {
		return this.partitions;
	}

	/** How many partitions, and the argument by which scripts that place by id check it. */
	int count() {
		return this.partitions.size();
	}

	/** The arguments of a script that places by id, followed by the partition count it places with. */
	List<String> placing(String... args) {
		List<String> all = new ArrayList<>(List.of(args));
		all.add(Integer.toString(count()));
		return all;
	}

	/** The partition that holds the task with the given id. */
	QueueKeys forId(String id) {
		if (this.partitions.size() == 1) {
			return this.partitions.get(0);
		}
		CRC32 crc = new CRC32();
		crc.update(id.getBytes(StandardCharsets.UTF_8));
		return this.partitions.get((int) (crc.getValue() % this.partitions.size()));
	}

}
