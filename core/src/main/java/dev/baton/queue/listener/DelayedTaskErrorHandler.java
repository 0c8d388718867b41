package dev.baton.queue.listener;

/**
 * Decides what happens to a task whose {@code @DelayedTask} handler failed: retried after a
 * delay, or given up on (dead-lettered, or deleted where the handler asks for no dead letters).
 * A bean of this type replaces the {@link DefaultDelayedTaskErrorHandler} for every queue.
 *
 * <p>Not called once the container is stopping: a task that fails then is handed back, neither
 * retried nor given up on, since the failure may come from beans already being destroyed.
 *
 * @see DefaultDelayedTaskErrorHandler
 */
@FunctionalInterface
public interface DelayedTaskErrorHandler {

	/**
	 * Decide what happens to a failed task.
	 * @param failure the failed attempt
	 * @return the decision
	 */
	TaskFailureDecision handle(TaskFailure failure);

}
