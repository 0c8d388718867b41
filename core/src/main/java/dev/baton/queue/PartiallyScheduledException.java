package dev.baton.queue;

import java.util.List;

/**
 * Thrown by {@link DelayQueue#scheduleAll} when Redis failed after some of the tasks were
 * stored: large calls are sent in chunks, and a chunk that failed does not undo the chunks
 * before it. Retry with {@link #getUnscheduledIds()} only, so that tasks with generated ids are
 * not scheduled twice.
 */
public class PartiallyScheduledException extends RuntimeException {

	private final List<String> scheduledIds;

	private final List<String> unscheduledIds;

	/**
	 * Create an exception.
	 * @param queue the queue name
	 * @param scheduledIds the ids that were stored before the failure
	 * @param unscheduledIds the ids of the tasks that were not stored (the failed chunk and after)
	 * @param cause what failed
	 */
	public PartiallyScheduledException(String queue, List<String> scheduledIds, List<String> unscheduledIds,
			Throwable cause) {
		super("scheduleAll on queue '" + queue + "' stored " + scheduledIds.size() + " task(s), then failed before "
				+ unscheduledIds.size() + " more: " + cause.getMessage(), cause);
		this.scheduledIds = List.copyOf(scheduledIds);
		this.unscheduledIds = List.copyOf(unscheduledIds);
	}

	/** The ids of the tasks that were stored, in the given order (duplicates of existing ids left out). */
	public List<String> getScheduledIds() {
		return this.scheduledIds;
	}

	/** The ids of the tasks that were not stored: schedule these again. */
	public List<String> getUnscheduledIds() {
		return this.unscheduledIds;
	}

}
