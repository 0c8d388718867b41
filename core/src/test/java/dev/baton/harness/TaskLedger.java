package dev.baton.harness;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What happened to each task: when it was accepted, how often its handler ran and succeeded,
 * each run, and the producer's cancels, reschedules and redrives with what they returned.
 */
final class TaskLedger {

	/** Task id to when the call that stored it started, in ms from the run's start. */
	final Map<String, Long> accepted = new ConcurrentHashMap<>();

	/** Task ids whose scheduling never returned: their outcome is unknown. */
	final Map<String, Long> unknown = new ConcurrentHashMap<>();

	/** Every scheduling try that failed, each of its tasks apart. */
	final List<FailedSchedule> failedSchedules = new CopyOnWriteArrayList<>();

	final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	final Map<String, AtomicInteger> successes = new ConcurrentHashMap<>();

	/** Every run of a handler, sync or async, in the order they ended. */
	final List<Run> history = new CopyOnWriteArrayList<>();

	/** Every cancel, reschedule and redrive the producer called, in call order. */
	final List<Action> actions = new CopyOnWriteArrayList<>();

	/**
	 * Ids whose scheduling was accepted only on a later try, to when that try started (ms from the
	 * run's start): an earlier try that failed may have stored the task too, and the task may have
	 * run and been acknowledged before the accepted try stored it again.
	 */
	final Map<String, Long> scheduledAgain = new ConcurrentHashMap<>();

	/** Every count of {@code baton.queue.stale} an instance's container made, in the order they were made. */
	final List<StaleCount> staleCounts = new CopyOnWriteArrayList<>();

	/** Ids of failing tasks whose "bug" was fixed before a redrive: their handler succeeds from then on. */
	final Set<String> fixed = ConcurrentHashMap.newKeySet();

	void ran(String id, boolean succeeded) {
		this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		if (succeeded) {
			this.successes.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	/** Records a finished run, and counts it as {@link #ran(String, boolean)} does. */
	void ran(Run run) {
		this.history.add(run);
		ran(run.id(), run.succeeded());
	}

	boolean handled(String id) {
		return this.successes.containsKey(id);
	}

	List<Run> runsOf(String id) {
		return this.history.stream().filter((run) -> run.id().equals(id)).toList();
	}

	List<Action> actionsOf(String id) {
		return this.actions.stream().filter((action) -> action.id().equals(id)).toList();
	}

	/** Whether a cancel of the task returned {@code true}, or may have deleted it without saying so. */
	boolean cancelled(String id) {
		return actionsOf(id).stream()
			.anyMatch((action) -> action.kind() == ActionKind.CANCEL && action.result() != Result.FALSE);
	}

	/**
	 * A scheduling try that failed, so that its outcome is unknown.
	 * @param startMillis when it was called, ms from the run's start
	 * @param endMillis when it failed
	 */
	record FailedSchedule(String id, int instance, long startMillis, long endMillis) {

	}

	enum ActionKind {

		CANCEL, RESCHEDULE, REDRIVE

	}

	enum Result {

		TRUE, FALSE,

		/** The call threw: Redis may or may not have done it. */
		UNKNOWN

	}

	/**
	 * A cancel, reschedule or redrive.
	 * @param startMillis when the call started, ms from the run's start
	 * @param endMillis when it returned or threw
	 * @param startWallMillis when it started on the wall clock, which is the Redis server's (same host)
	 * @param delayMillis the new delay of a reschedule, 0 otherwise
	 */
	record Action(String id, ActionKind kind, long startMillis, long endMillis, long startWallMillis,
			long delayMillis, Result result) {

	}

	/**
	 * What Baton counted in {@code baton.queue.stale}: deliveries Redis answered were no longer
	 * theirs, their visibility having run out (or their task settled or cancelled meanwhile).
	 * @param instance the instance whose container counted them
	 * @param atMillis when, ms from the run's start
	 * @param operation what Redis answered so: {@code extend} or {@code ack}
	 * @param count how many deliveries
	 */
	record StaleCount(int instance, long atMillis, String operation, int count) {

	}

	/**
	 * One run of a handler.
	 * @param attempt the delivery's attempt number
	 * @param dueAtMillis the delivery's due time, epoch ms of the Redis clock
	 * @param startMillis when the handler started, ms from the run's start
	 * @param startWallMillis the same on the wall clock (the Redis server's: same host)
	 * @param endMillis when its work ended (for an async handler, when its future completed)
	 * @param succeeded whether it returned, or its future completed, normally
	 * @param async whether the handler returned a future
	 * @param absentWhilePending for an async run, whether the task was found not in flight while its
	 * future was still pending (acknowledged before its work was done?)
	 * @param scheduledAtMillis when the delivered task was stored, epoch ms of the Redis clock
	 * @param lost whether the handler saw its delivery lost ({@code TaskContext.isLost()}) when its
	 * work ended: the container had counted it stale
	 */
	record Run(String id, int instance, int attempt, long dueAtMillis, long startMillis, long startWallMillis,
			long endMillis, boolean succeeded, boolean async, boolean absentWhilePending, long scheduledAtMillis,
			boolean lost) {

		/**
		 * The earliest its delivery may have been claimed, ms from the run's start: at its due time,
		 * which may be well before the run started (a delivery claimed ahead waits for a worker).
		 */
		long earliestClaimMillis() {
			return this.startMillis - Math.max(0, this.startWallMillis - this.dueAtMillis);
		}

		/** A run of a task stored before the run's start, whose delivery was not seen lost. */
		Run(String id, int instance, int attempt, long dueAtMillis, long startMillis, long startWallMillis,
				long endMillis, boolean succeeded, boolean async, boolean absentWhilePending) {
			this(id, instance, attempt, dueAtMillis, startMillis, startWallMillis, endMillis, succeeded, async,
					absentWhilePending, 0, false);
		}

	}

}
