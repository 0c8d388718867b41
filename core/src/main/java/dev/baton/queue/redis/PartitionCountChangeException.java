package dev.baton.queue.redis;

import dev.baton.queue.QueueException;

/**
 * A queue was configured with a number of partitions other than the one recorded in Redis, which
 * its stored tasks were placed with. Tasks are placed by id, so another count would look for them
 * in the wrong partition, or never claim them: the count changes only when asked to
 * ({@link RedisDelayQueues#changePartitions}), and only while the queue holds no task.
 */
public class PartitionCountChangeException extends QueueException {

	private final String queue;

	private final int storedPartitions;

	private final int configuredPartitions;

	/**
	 * Create an exception.
	 * @param queue the queue
	 * @param storedPartitions the partitions its tasks were placed in
	 * @param configuredPartitions the partitions it is configured with now
	 * @param tasks how many tasks (waiting, in flight and dead letters) it holds
	 */
	public PartitionCountChangeException(String queue, int storedPartitions, int configuredPartitions, long tasks) {
		this("Queue '" + queue + "' holds " + tasks + " task(s) placed in " + storedPartitions
				+ " partition(s), so it cannot use " + configuredPartitions + " partition(s): tasks are placed by id "
				+ "and would be looked for in the wrong partition. Keep " + storedPartitions
				+ " partition(s) until the queue is empty and then change it with RedisDelayQueues.changePartitions, "
				+ "or move to a new queue name", queue, storedPartitions,
				configuredPartitions);
	}

	/**
	 * Create an exception for an instance configured with a count other than the one recorded in
	 * Redis, which every instance of the queue must use until it is
	 * {@linkplain RedisDelayQueues#changePartitions changed}.
	 * @param queue the queue
	 * @param recordedPartitions the partitions recorded for the queue
	 * @param configuredPartitions the partitions this instance is configured with
	 */
	public PartitionCountChangeException(String queue, int recordedPartitions, int configuredPartitions) {
		this("Queue '" + queue + "' is recorded in Redis with " + recordedPartitions + " partition(s), but this "
				+ "instance is configured with " + configuredPartitions + ": every instance of a queue places task "
				+ "ids with the recorded count, or refuses to write. Configure " + recordedPartitions
				+ " partition(s), or change the count with RedisDelayQueues.changePartitions while the queue is empty",
				queue, recordedPartitions, configuredPartitions);
	}

	/** An exception for a queue whose count is being changed: no instance writes to it meanwhile. */
	static PartitionCountChangeException changing(String queue, int recordedPartitions, int configuredPartitions) {
		return new PartitionCountChangeException("The partition count of queue '" + queue + "' is being changed from "
				+ recordedPartitions + ", so no instance writes to it; if the change was cut short, ask for it again "
				+ "with RedisDelayQueues.changePartitions", queue, recordedPartitions, configuredPartitions);
	}

	private PartitionCountChangeException(String message, String queue, int storedPartitions,
			int configuredPartitions) {
		super(message, null);
		this.queue = queue;
		this.storedPartitions = storedPartitions;
		this.configuredPartitions = configuredPartitions;
	}

	/** The queue. */
	public String getQueue() {
		return this.queue;
	}

	/** The partitions recorded for the queue, which its tasks were placed in. */
	public int getStoredPartitions() {
		return this.storedPartitions;
	}

	/** The partitions the queue is configured with now. */
	public int getConfiguredPartitions() {
		return this.configuredPartitions;
	}

}
