package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueStats;

/**
 * The queue invariants, after healing: once the queue has drained, every accepted task was
 * handled, dead-lettered or cancelled; a cancelled task never started after its cancel returned;
 * a rescheduled task never started before its new due time; a redriven dead letter was handled or
 * dead-lettered again; a failed run (a throw or a failed future) was retried or dead-lettered,
 * never acknowledged; and an async handler's task stayed in flight until its future completed.
 * Duplicates are counted and reported, not failed.
 */
final class QueueChecks {

	static final String NOT_LOST = "At least once: an accepted task is handled or dead-lettered";

	static final String BOUNDED = "queue calls give up after baton.queue.command-timeout";

	static final String CANCEL_FINAL = "Cancel is final: a task whose cancel returned true never runs";

	static final String RESCHEDULED = "A rescheduled task runs at or after its new due time, on the Redis clock";

	static final String REDRIVEN = "A redriven dead letter is handled or dead-lettered again";

	static final String ACK_AFTER_WORK = "A task is acknowledged only after its work: a failure is retried, a future waited for";

	/**
	 * How early a run may start on the wall clock, which is the Redis server's (one host): due times
	 * are whole milliseconds of Redis time (docs/delayed-tasks.md), and nothing is delivered before.
	 */
	static final long DUE_TOLERANCE_MILLIS = 1;

	/** As many as one read may ask for; a run dead-letters far fewer. */
	private static final int MAX_DEAD_LETTERS = DelayQueue.MAX_PEEK;

	private final TaskLedger ledger;

	private final List<long[]> kills;

	private final Violations violations;

	private final Timeline timeline;

	private int lostWithRedis;

	private QueueStats lastStats;

	/** Dead letters left after draining, by id, with when they failed, epoch ms. */
	private Map<String, Long> deadLettered = Map.of();

	private int cancelled;

	private int duplicatesOfRescheduled;

	private int rescheduledRunsChecked;

	private int redrivesChecked;

	QueueChecks(TaskLedger ledger, List<long[]> kills, Violations violations, Timeline timeline) {
		this.ledger = ledger;
		this.kills = kills;
		this.violations = violations;
		this.timeline = timeline;
	}

	/** Waits until nothing is scheduled, due or in flight, at most {@code atMost}, and reads the dead letters. */
	void drain(DelayQueue<HarnessTask> queue, Duration atMost) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		do {
			try {
				this.lastStats = queue.stats();
				this.deadLettered = queue.deadLetters(MAX_DEAD_LETTERS).stream()
					.collect(Collectors.toMap(DeadLetter::id, (dead) -> dead.failedAt().toEpochMilli(), Math::max));
				if (this.lastStats.scheduled() + this.lastStats.due() + this.lastStats.inFlight() == 0) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// Redis still restarting: look again.
			}
			Thread.sleep(200);
		}
		while (System.nanoTime() < deadline);
		this.violations.add("queue", NOT_LOST, "the queue did not drain within " + atMost.toSeconds()
				+ " s after healing: " + this.lastStats);
	}

	/** Sets the dead letters left, as {@link #drain} reads them: for tests. */
	void deadLettered(Map<String, Long> failedAtById) {
		this.deadLettered = Map.copyOf(failedAtById);
	}

	void check() {
		checkNotLost();
		checkCancels();
		checkReschedules();
		checkRedrives();
		checkAcknowledgements();
	}

	private void checkNotLost() {
		this.ledger.accepted.forEach((id, acceptedAt) -> {
			if (this.ledger.handled(id) || this.deadLettered.containsKey(id)) {
				return;
			}
			if (this.ledger.cancelled(id)) {
				// Cancelled, or a cancel that threw may have deleted it: not lost.
				this.cancelled++;
				return;
			}
			if (this.kills.stream().anyMatch((kill) -> kill[0] >= acceptedAt)) {
				// Durability is Redis's durability: a kill without persistence loses what it held.
				this.lostWithRedis++;
				this.timeline.record(id, "lost with Redis's data (killed after it was accepted)");
				return;
			}
			String cancels = this.ledger.actionsOf(id).stream()
				.filter((action) -> action.kind() == TaskLedger.ActionKind.CANCEL)
				.map((action) -> "; a cancel returned " + action.result() + " at " + action.endMillis() + " ms")
				.collect(Collectors.joining());
			this.violations.add(acceptedAt, id, NOT_LOST,
					"task accepted at " + acceptedAt + " ms was neither handled nor dead-lettered, "
							+ (this.ledger.runs.containsKey(id) ? this.ledger.runs.get(id) : 0) + " failed runs"
							+ cancels);
		});
	}

	/** No run of a task starts after a cancel of it returned {@code true}. */
	private void checkCancels() {
		for (TaskLedger.Action cancel : this.ledger.actions) {
			if (cancel.kind() != TaskLedger.ActionKind.CANCEL || cancel.result() != TaskLedger.Result.TRUE) {
				continue;
			}
			for (TaskLedger.Run run : this.ledger.runsOf(cancel.id())) {
				if (run.startMillis() > cancel.endMillis()) {
					long cancelledAtWall = cancel.startWallMillis() + (cancel.endMillis() - cancel.startMillis());
					this.violations.add(run.startMillis(), cancel.id(), CANCEL_FINAL,
							"instance-" + run.instance() + " started attempt " + run.attempt() + " at "
									+ run.startMillis() + " ms, after cancel returned true at " + cancel.endMillis()
									+ " ms" + ((run.dueAtMillis() > cancelledAtWall)
											? "; the delivery was due at wall " + run.dueAtMillis()
													+ ", after the cancel returned at wall " + cancelledAtWall
													+ ": the task was stored again after its cancel"
											: ""));
				}
			}
		}
	}

	/**
	 * A run that starts after a reschedule returned {@code true}, with no later reschedule or
	 * redrive whose outcome could have moved the task again, starts at or after the new due time and
	 * carries it: the task was not also delivered at its old time.
	 */
	private void checkReschedules() {
		Map<String, Integer> successesAfter = new java.util.HashMap<>();
		for (TaskLedger.Run run : this.ledger.history) {
			TaskLedger.Action last = null;
			for (TaskLedger.Action action : this.ledger.actionsOf(run.id())) {
				if (action.startMillis() < run.startMillis() && action.kind() != TaskLedger.ActionKind.CANCEL
						&& action.result() != TaskLedger.Result.FALSE) {
					last = action;
				}
			}
			if (last == null || last.kind() != TaskLedger.ActionKind.RESCHEDULE
					|| last.result() != TaskLedger.Result.TRUE || last.endMillis() >= run.startMillis()) {
				continue;
			}
			this.rescheduledRunsChecked++;
			long due = last.startWallMillis() + last.delayMillis();
			if (run.startWallMillis() < due - DUE_TOLERANCE_MILLIS || run.dueAtMillis() < due - DUE_TOLERANCE_MILLIS) {
				this.violations.add(run.startMillis(), run.id(), RESCHEDULED,
						"instance-" + run.instance() + " started attempt " + run.attempt() + " at wall "
								+ run.startWallMillis() + " with due time " + run.dueAtMillis()
								+ ", but a reschedule by " + last.delayMillis() + " ms called at wall "
								+ last.startWallMillis() + " returned true at " + last.endMillis()
								+ " ms: due no earlier than " + due);
			}
			if (run.succeeded()) {
				successesAfter.merge(run.id() + "@" + last.startMillis(), 1, Integer::sum);
			}
		}
		this.duplicatesOfRescheduled = (int) successesAfter.values().stream().filter((count) -> count > 1).count();
	}

	/** A redrive that returned {@code true} is followed by a success or by a new dead letter. */
	private void checkRedrives() {
		for (TaskLedger.Action redrive : this.ledger.actions) {
			if (redrive.kind() != TaskLedger.ActionKind.REDRIVE || redrive.result() != TaskLedger.Result.TRUE) {
				continue;
			}
			String id = redrive.id();
			this.redrivesChecked++;
			boolean handled = this.ledger.runsOf(id).stream()
				.anyMatch((run) -> run.succeeded() && run.startMillis() >= redrive.startMillis());
			Long failedAt = this.deadLettered.get(id);
			boolean deadAgain = failedAt != null && failedAt >= redrive.startWallMillis();
			if (handled || deadAgain || this.ledger.cancelled(id) || killedSince(redrive.startMillis())) {
				continue;
			}
			this.violations.add(redrive.startMillis(), id, REDRIVEN,
					"redrive returned true at " + redrive.endMillis() + " ms, but the task was neither handled after"
							+ " it nor dead-lettered again; " + this.ledger.runsOf(id).size() + " runs in all"
							+ ((failedAt != null) ? ", a dead letter of wall " + failedAt + " left" : ""));
		}
	}

	/**
	 * Every failed run is followed by another run of the task, or its dead letter, or a cancel:
	 * a failure never acknowledges. And an async run's task was in flight while its future was
	 * pending, unless the delivery was lost and the task ran again.
	 */
	private void checkAcknowledgements() {
		for (TaskLedger.Run run : this.ledger.history) {
			List<TaskLedger.Run> later = this.ledger.runsOf(run.id()).stream()
				.filter((other) -> other != run && other.startMillis() >= run.startMillis())
				.toList();
			// A kill after the task was accepted may have emptied Redis under a delivery claimed earlier.
			boolean excused = !later.isEmpty()
					|| killedSince(this.ledger.accepted.getOrDefault(run.id(), run.startMillis()));
			if (!run.succeeded() && !excused) {
				Long failedAt = this.deadLettered.get(run.id());
				boolean dead = failedAt != null && failedAt >= run.startWallMillis();
				// A cancel that timed out may still reach Redis later (see KnownDefects): its outcome is
				// unknown at any time after it.
				boolean cancelledAfter = this.ledger.actionsOf(run.id()).stream()
					.anyMatch((action) -> action.kind() == TaskLedger.ActionKind.CANCEL
							&& (action.result() == TaskLedger.Result.UNKNOWN
									|| (action.result() == TaskLedger.Result.TRUE
											&& action.endMillis() >= run.startMillis())));
				if (!dead && !cancelledAfter) {
					this.violations.add(run.endMillis(), run.id(), ACK_AFTER_WORK,
							"instance-" + run.instance() + "'s attempt " + run.attempt()
									+ (run.async() ? ", whose future failed," : ", which threw,")
									+ " was neither retried nor dead-lettered: acknowledged as if it succeeded");
				}
			}
			if (run.absentWhilePending() && !excused) {
				this.violations.add(run.endMillis(), run.id(), ACK_AFTER_WORK,
						"instance-" + run.instance() + "'s attempt " + run.attempt() + " returned a future at "
								+ run.startMillis() + " ms; before it completed at " + run.endMillis()
								+ " ms, the task was no longer in flight, and it never ran again");
			}
		}
	}

	private boolean killedSince(long millis) {
		return this.kills.stream().anyMatch((kill) -> kill[1] >= millis);
	}

	String summary() {
		Map<String, Integer> twice = this.ledger.successes.entrySet().stream()
			.filter((entry) -> entry.getValue().get() > 1)
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().get()));
		int extra = twice.values().stream().mapToInt((runs) -> runs - 1).sum();
		long handledUnknown = this.ledger.unknown.keySet().stream().filter(this.ledger::handled).count();
		return this.ledger.accepted.size() + " tasks accepted, " + this.ledger.successes.size() + " handled, "
				+ this.deadLettered.size() + " dead-lettered, " + this.cancelled + " cancelled, "
				+ this.ledger.history.stream().filter(TaskLedger.Run::async).count() + " async runs, "
				+ this.rescheduledRunsChecked + " runs checked against a new due time, " + this.redrivesChecked
				+ " redrives checked, " + this.duplicatesOfRescheduled + " rescheduled tasks handled more than once, "
				+ this.lostWithRedis
				+ " lost with a Redis kill (documented), " + twice.size() + " handled more than once (" + extra
				+ " extra runs), " + this.ledger.unknown.size() + " with unknown scheduling outcome (" + handledUnknown
				+ " of them handled)";
	}

}
