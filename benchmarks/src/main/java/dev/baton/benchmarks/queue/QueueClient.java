package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.List;

/**
 * One delayed-queue implementation under test: a producer and running consumers on one queue.
 * Payloads are short strings, handed to the consumers' {@link TaskHandler} unchanged.
 */
public interface QueueClient extends AutoCloseable {

	/**
	 * Schedules one task with one synchronous call.
	 * @param id the task id, unique within the run
	 * @param payload the payload
	 * @param delay how long from now the task falls due
	 */
	void schedule(String id, String payload, Duration delay);

	/**
	 * Schedules many tasks the fastest way the library offers (a batch call, or pipelined
	 * asynchronous calls), returning once all are stored.
	 * @param tasks the tasks
	 */
	void scheduleAll(List<Task> tasks);

	/** Stops the consumers (tasks they have not taken stay in Redis) and disconnects. */
	@Override
	void close();

	/**
	 * A task to schedule.
	 * @param id the task id
	 * @param payload the payload
	 * @param delay how long from now it falls due
	 */
	record Task(String id, String payload, Duration delay) {
	}

}
