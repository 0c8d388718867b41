package dev.baton.queue.listener;

import java.time.Duration;

import org.springframework.context.Lifecycle;

/**
 * Consumes one queue for its {@code @DelayedTask} handler: claims due tasks, runs the handler and
 * settles each task. The {@link DelayedTaskListenerRegistry} starts and stops its containers with
 * the application context; reach them through {@link DelayedTaskListenerRegistry#getContainers()}.
 */
public interface DelayedTaskContainer extends Lifecycle {

	/** The queue this container consumes. */
	String getQueueName();

	/** Whether the container runs and makes progress, for health checks. */
	DelayedTaskListenerStatus getStatus();

	/**
	 * Stop claiming, hand back the tasks that did not start, wait for running handlers up to the
	 * queue's shutdown timeout or {@code maxWait}, whichever is shorter, then hand back what is
	 * still running.
	 * @param maxWait the longest wait for running handlers
	 */
	void stop(Duration maxWait);

}
