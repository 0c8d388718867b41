package dev.baton.queue.listener;

import org.slf4j.MDC;

import org.springframework.util.ClassUtils;

/**
 * Puts the queue, task id and attempt in SLF4J's MDC while a handler runs on a worker thread, so
 * that its log lines say which task they belong to. Does nothing without SLF4J.
 */
final class HandlerMdc {

	/** MDC key of the queue name. */
	static final String QUEUE = "baton.queue";

	/** MDC key of the task id. */
	static final String TASK_ID = "baton.task.id";

	/** MDC key of the delivery attempt, from 1. */
	static final String ATTEMPT = "baton.task.attempt";

	private static final boolean SLF4J_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
			HandlerMdc.class.getClassLoader());

	private static final HandlerMdc NONE = new HandlerMdc(false);

	private final boolean set;

	private HandlerMdc(boolean set) {
		this.set = set;
	}

	static HandlerMdc open(String queue, String taskId, int attempt) {
		if (!SLF4J_PRESENT) {
			return NONE;
		}
		MDC.put(QUEUE, queue);
		MDC.put(TASK_ID, taskId);
		MDC.put(ATTEMPT, Integer.toString(attempt));
		return new HandlerMdc(true);
	}

	/** Removes what {@link #open} put. */
	void close() {
		if (this.set) {
			MDC.remove(QUEUE);
			MDC.remove(TASK_ID);
			MDC.remove(ATTEMPT);
		}
	}

}
