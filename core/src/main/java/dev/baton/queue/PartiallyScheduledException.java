package dev.baton.queue;

import java.util.List;

/**
 * Thrown by {@link DelayQueue#scheduleAll} and {@link DelayQueue#schedule(Object, java.time.Duration)}
 * when Redis failed, or did not answer in time, before it confirmed every task: large calls are
 * sent in chunks, a partitioned queue sends each partition its own, and a chunk that failed does
 * not undo the ones before it. A chunk that was not answered may still have been stored.
 *
 * <p>Retry with {@link #getUnscheduledTasks()} only: they carry their ids, generated ones
 * included, and a task whose id is already scheduled is left out, so nothing is scheduled twice.
 */
public class PartiallyScheduledException extends QueueException {

	private final List<String> scheduledIds;

	private final List<NewTask<?>> unscheduledTasks;

	/**
	 * Create an exception.
	 * @param queue the queue name
	 * @param scheduledIds the ids that Redis confirmed as stored
	 * @param unscheduledTasks the tasks that Redis did not confirm, each with its id (not {@code null})
	 * @param cause what failed
	 */
	public PartiallyScheduledException(String queue, List<String> scheduledIds,
			List<? extends NewTask<?>> unscheduledTasks, Throwable cause) {
		super("Scheduling on queue '" + queue + "' stored " + scheduledIds.size() + " task(s), then failed for "
				+ unscheduledTasks.size() + " more: " + cause.getMessage(), cause);
		this.scheduledIds = List.copyOf(scheduledIds);
		this.unscheduledTasks = List.copyOf(unscheduledTasks);
	}

	/** The ids of the tasks that were stored, in the given order (duplicates of existing ids left out). */
	public List<String> getScheduledIds() {
		return this.scheduledIds;
	}

	/**
	 * The ids of the tasks that Redis did not confirm, generated ones included, in the given
	 * order: schedule these again (a call that was not answered may have stored them; their ids
	 * make that safe).
	 */
	public List<String> getUnscheduledIds() {
		return this.unscheduledTasks.stream().map(NewTask::id).toList();
	}

	/**
	 * The tasks that Redis did not confirm, in the given order, each under its id (a generated id
	 * filled in) and with its payload and delay as given: pass them to
	 * {@link DelayQueue#scheduleAll} of the same queue to schedule them again.
	 * @param <T> the payload type of the queue that threw this exception
	 * @return the tasks
	 */
	@SuppressWarnings("unchecked")
	public <T> List<NewTask<T>> getUnscheduledTasks() {
		return (List<NewTask<T>>) (List<?>) this.unscheduledTasks;
	}

}
