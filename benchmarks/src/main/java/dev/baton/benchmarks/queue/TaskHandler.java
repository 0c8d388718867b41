package dev.baton.benchmarks.queue;

/** What the consumers of a {@link QueueClient} do with each task: record it and return. */
@FunctionalInterface
public interface TaskHandler {

	void handle(String payload);

}
