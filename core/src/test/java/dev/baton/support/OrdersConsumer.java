package dev.baton.support;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;

import org.springframework.context.support.GenericApplicationContext;

/**
 * An application context with a {@code @DelayedTask} handler of queue {@code orders} that records
 * the id of every task it handles: the consumer of the tests that run against replicated sets and
 * clusters.
 */
public final class OrdersConsumer implements AutoCloseable {

	private final Handler handler = new Handler();

	private final GenericApplicationContext context = new GenericApplicationContext();

	/**
	 * Starts consuming.
	 * @param queues the queues to consume from
	 */
	public OrdersConsumer(RedisDelayQueues queues) {
		this.context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		this.context.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(queues).build());
		this.context.registerBean(Handler.class, () -> this.handler);
		this.context.refresh();
	}

	/** The ids of the tasks handled so far. */
	public Set<String> handled() {
		return this.handler.handled;
	}

	@Override
	public void close() {
		this.context.close();
	}

	static class Handler {

		final Set<String> handled = ConcurrentHashMap.newKeySet();

		@DelayedTask(queue = "orders")
		void handle(String payload, TaskContext task) {
			this.handled.add(task.id());
		}

	}

}
