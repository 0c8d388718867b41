package dev.baton.queue.listener;

import org.springframework.util.backoff.BackOff;

/**
 * A failed attempt of a task, as a {@link DelayedTaskErrorHandler} sees it.
 *
 * @param queue the queue's name
 * @param taskId the task's id
 * @param attempt the attempt that failed, {@code 1} for the first
 * @param exception what the handler threw, or the failure of the work it returned
 * @param backOff the queue's configured retries as a back-off: {@code max-attempts} and
 * {@code backoff.*}, with one {@link org.springframework.util.backoff.BackOffExecution#nextBackOff()
 * nextBackOff()} per retry
 */
public record TaskFailure(String queue, String taskId, int attempt, Throwable exception, BackOff backOff) {

	@Override
	public String toString() {
		// The exception's message may quote the payload: its class only.
		return "TaskFailure[queue=" + this.queue + ", taskId=" + this.taskId + ", attempt=" + this.attempt
				+ ", exception=" + this.exception.getClass().getName() + "]";
	}

}
