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
		super("Queue '" + queue + "' holds " + tasks + " task(s) placed in " + storedPartitions
				+ " partition(s), so it cannot use " + configuredPartitions + " partition(s): tasks are placed by id "
				+ "and would be looked for in the wrong partition. Keep " + storedPartitions
				+ " partition(s) until the queue is empty, or move to a new queue name");
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
