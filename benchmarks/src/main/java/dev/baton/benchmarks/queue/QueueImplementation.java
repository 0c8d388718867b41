package dev.baton.benchmarks.queue;

/**
 * A named delayed-queue implementation the harness can run.
 * @param name the name used on the command line and in result tables
 * @param batchDescription how {@link QueueClient#scheduleAll} stores tasks, for the table
 * @param factory connects a producer and starts consumers
 */
public record QueueImplementation(String name, String batchDescription, Factory factory) {

	/**
	 * Connects a producer to the queue and starts consumer threads on it.
	 * @param redisUrl the server
	 * @param queue the queue name, new for every run
	 * @param consumers how many consumer threads
	 * @param handler what consumers do with each task
	 * @return the running client
	 */
	public QueueClient connect(String redisUrl, String queue, int consumers, TaskHandler handler) {
		return this.factory.connect(redisUrl, queue, consumers, handler);
	}

	/** Creates a {@link QueueClient}; see {@link QueueImplementation#connect}. */
	@FunctionalInterface
	public interface Factory {

		QueueClient connect(String redisUrl, String queue, int consumers, TaskHandler handler);

	}

}
