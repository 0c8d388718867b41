package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.List;

import dev.baton.benchmarks.BatonApplication;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.NewTask;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Baton's {@link DelayQueue} and a {@link DelayedTask @DelayedTask} handler with the benchmark's
 * consumer count, in a Spring Boot application per client, as users run it. The queue is always
 * {@value #QUEUE} (an annotation names it); the harness empties Redis between runs.
 */
final class BatonQueueClient implements QueueClient {

	static final String QUEUE = "bench";

	private final ConfigurableApplicationContext application;

	private final DelayQueue<String> queue;

	/** A client with Baton's default settings. */
	BatonQueueClient(String redisUrl, String queue, int consumers, TaskHandler handler) {
		this(redisUrl, consumers, handler);
	}

	private BatonQueueClient(String redisUrl, int consumers, TaskHandler handler, String... settings) {
		String[] properties = new String[settings.length + 1];
		properties[0] = "bench.consumers=" + consumers;
		System.arraycopy(settings, 0, properties, 1, settings.length);
		this.application = BatonApplication.start(redisUrl,
				(context) -> context.registerBean(Handler.class, () -> new Handler(handler)), properties);
		this.queue = this.application.getBean(DelayQueues.class).get(QUEUE, String.class);
	}

	/**
	 * Clients with settings of their own.
	 * @param settings {@code baton.queue.*} properties, such as {@code baton.queue.prefetch=0}
	 * @return a factory of such clients
	 */
	static QueueImplementation.Factory withSettings(String... settings) {
		return (redisUrl, queue, consumers, handler) -> new BatonQueueClient(redisUrl, consumers, handler, settings);
	}

	@Override
	public void schedule(String id, String payload, Duration delay) {
		if (!this.queue.schedule(id, payload, delay)) {
			throw new IllegalStateException("Task " + id + " was already scheduled");
		}
	}

	@Override
	public void scheduleAll(List<Task> tasks) {
		List<NewTask<String>> batch = tasks.stream()
			.map((task) -> NewTask.of(task.id(), task.payload(), task.delay()))
			.toList();
		int scheduled = this.queue.scheduleAll(batch).size();
		if (scheduled != tasks.size()) {
			throw new IllegalStateException((tasks.size() - scheduled) + " tasks were already scheduled");
		}
	}

	/** A bean of the client's application, such as its lock manager. */
	<T> T bean(Class<T> type) {
		return this.application.getBean(type);
	}

	@Override
	public void close() {
		this.application.close();
	}

	/** The consumer: a plain handler bean, as an application declares one. */
	public static final class Handler {

		private final TaskHandler delegate;

		Handler(TaskHandler delegate) {
			this.delegate = delegate;
		}

		@DelayedTask(queue = QUEUE, concurrency = "${bench.consumers}")
		public void handle(String payload) {
			this.delegate.handle(payload);
		}

	}

}
