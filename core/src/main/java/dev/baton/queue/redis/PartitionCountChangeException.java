package dev.baton.queue.redis;

/**
 * A queue was configured with a number of partitions other than the one its stored tasks were
 * placed with. Tasks are placed by id, so the new count would look for them in the wrong
 * partition, or never claim them: the count can change only while the queue holds no task.
 */
public class PartitionCountChangeException extends IllegalStateException {

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
				+ " partition(s) until the queue is empty, or move to a new queue name", queue, storedPartitions,
				configuredPartitions);
	}

	/**
	 * Create an exception for a count that another instance recorded while this one checked the
	 * empty queue.
	 * @param queue the queue
	 * @param recordedPartitions the partitions the other instance recorded
	 * @param configuredPartitions the partitions this instance is configured with
	 */
	public PartitionCountChangeException(String queue, int recordedPartitions, int configuredPartitions) {
		this("Another instance recorded " + recordedPartitions + " partition(s) for queue '" + queue
				+ "' while this one, configured with " + configuredPartitions + ", checked it: every instance of a "
				+ "queue must use the same partition count", queue, recordedPartitions, configuredPartitions);
	}

	private PartitionCountChangeException(String message, String queue, int storedPartitions,
			int configuredPartitions) {
		super(message);
		this.queue = queue;
		this.storedPartitions = storedPartitions;
		this.configuredPartitions = configuredPartitions;
	}

	/** The queue. */
	public String getQueue() {
		return this.queue;
	}

	/** The partitions the queue's tasks were placed in. */
	public int getStoredPartitions() {
		return this.storedPartitions;
	}

	/** The partitions the queue is configured with now. */
	public int getConfiguredPartitions() {
		return this.configuredPartitions;
	}

}
