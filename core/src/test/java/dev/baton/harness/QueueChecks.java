package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * The queue invariants, after healing: once the queue has drained, every accepted task was
 * handled, dead-lettered or cancelled; a cancelled task never started after its cancel returned;
 * a rescheduled task never started before its new due time; a redriven dead letter was handled or
 * dead-lettered again; a failed run (a throw or a failed future) was retried or dead-lettered,
 * never acknowledged; an async handler's task stayed in flight until its future completed; and
 * every duplicate has a documented cause that was recorded when it happened (see
 * {@link #checkDuplicates()}).
 */
final class QueueChecks {

	static final String NOT_LOST = "At least once: an accepted task is handled or dead-lettered";

	static final String BOUNDED = "queue calls give up after baton.queue.command-timeout";

	static final String CANCEL_FINAL = "Cancel is final: a task whose cancel returned true never runs";

	static final String RESCHEDULED = "A rescheduled task runs at or after its new due time, on the Redis clock";

	static final String REDRIVEN = "A redriven dead letter is handled or dead-lettered again";

	static final String NO_UNEXPLAINED_DUPLICATE = "No duplicate while the handler is healthy, except at shutdown";

	/**
	 * How long before a run's start Baton's count of its delivery as stale may come: a worker that
	 * took the delivery from the line as an extension found it stale starts it all the same.
	 */
	static final long STALE_BEFORE_START_MILLIS = 100;

	static final String ACK_AFTER_WORK = "A task is acknowledged only after its work: a failure is retried, a future waited for";

	/**
	 * How early a run may start on the wall clock, which is the Redis server's (one host): due times
	 * are whole milliseconds of Redis time (docs/delayed-tasks.md), and nothing is delivered before.
	 */
	static final long DUE_TOLERANCE_MILLIS = 1;

	/**
	 * How long after its consumer began to stop a run must end to have outlived the stop: the
	 * shutdown timeout, after which the container hands the task back, and half a second for the
	 * container to begin stopping after the harness recorded it.
	 */
	static final long OUTLIVED_STOP_MILLIS = Visibility.SHUTDOWN_TIMEOUT.toMillis() + 500;

	/** As many as one read may ask for; a run dead-letters far fewer. */
	private static final int MAX_DEAD_LETTERS = DelayQueue.MAX_PEEK;

	private final TaskLedger ledger;

	private final List<long[]> kills;

	private final Visibility visibility;

	private final Violations violations;

	private final Timeline timeline;

	private int lostWithRedis;

	private QueueStats lastStats;

	/** Dead letters left after draining, by id, with when they failed, epoch ms. */
	private Map<String, Long> deadLettered = Map.of();

	private int cancelled;

	/** Successful runs that ended after their consumer's stop gave their task back. */
	private int outlivedStops;

	private int duplicatesOfRescheduled;

	private int rescheduledRunsChecked;

	private int redrivesChecked;

	/** Consumer restarts, {instance, start, end}, as {@link FaultInjector#consumerStops()} records them. */
	private List<long[]> consumerStops = List.of();

	private Outages outages = new Outages(List.of());

	private Outages heldRequests = new Outages(List.of());

	/** Tasks stored again after their cancel by a schedule that had timed out while held back. */
	private int storedAfterCancelByHeldSchedule;

	/** Duplicates by the cause found for them, in the order of {@link DuplicateCause}. */
	private final int[] duplicatesByCause = new int[DuplicateCause.values().length];

	private int unexplainedDuplicates;

	QueueChecks(TaskLedger ledger, List<long[]> kills, Visibility visibility, Violations violations,
			Timeline timeline) {
		this.ledger = ledger;
		this.visibility = visibility;
		this.kills = kills;
		this.violations = violations;
		this.timeline = timeline;
	}

	/**
	 * Waits until nothing is scheduled, due or in flight, and reads the dead letters. A queue that
	 * keeps shrinking may take up to {@code atMost}: a busy run leaves a backlog that the instances
	 * work off at their handlers' pace (whether an instance stayed free meanwhile is the progress
	 * check's); one that stops shrinking for {@code withoutProgress} is a violation.
	 */
	void drain(DelayQueue<HarnessTask> queue, Duration withoutProgress, Duration atMost) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + atMost.toNanos();
		long lastProgress = start;
		long fewestLeft = Long.MAX_VALUE;
		do {
			try {
				this.lastStats = queue.stats();
				this.deadLettered = queue.deadLetters(MAX_DEAD_LETTERS).stream()
					.collect(Collectors.toMap(DeadLetter::id, (dead) -> dead.failedAt().toEpochMilli(), Math::max));
				long left = this.lastStats.scheduled() + this.lastStats.due() + this.lastStats.inFlight();
				if (left == 0) {
					return;
				}
				if (left < fewestLeft) {
					fewestLeft = left;
					lastProgress = System.nanoTime();
				}
			}
			catch (RuntimeException ex) {
				// Redis still restarting: look again.
			}
			Thread.sleep(200);
		}
		while (System.nanoTime() < Math.min(deadline, lastProgress + withoutProgress.toNanos()));
		this.violations.add("queue", NOT_LOST, "the queue did not drain after healing: "
				+ ((System.nanoTime() >= deadline) ? "not within " + atMost.toSeconds() + " s"
						: "nothing left it for " + withoutProgress.toSeconds() + " s")
				+ " (drained for " + Duration.ofNanos(System.nanoTime() - start).toSeconds() + " s): " + this.lastStats);
	}

	/** Sets the dead letters left, as {@link #drain} reads them: for tests. */
	void deadLettered(Map<String, Long> failedAtById) {
		this.deadLettered = Map.copyOf(failedAtById);
	}

	/** Sets the consumer restarts of the run, {instance, start, end} in ms from its start. */
	void consumerStops(List<long[]> stops) {
		this.consumerStops = List.copyOf(stops);
	}

	/** Sets when each instance could not reach Redis, which a stale count needs to explain a duplicate. */
	void outages(Outages outages) {
		this.outages = outages;
	}

	/** When each instance's requests could be held back and still run later. */
	void heldRequests(Outages heldRequests) {
		this.heldRequests = heldRequests;
	}

	void check() {
		checkNotLost();
		checkCancels();
		checkReschedules();
		checkRedrives();
		checkAcknowledgements();
		checkDuplicates();
	}

	private void checkNotLost() {
		this.ledger.accepted.forEach((id, acceptedAt) -> {
			if (settledBySuccess(id) || this.deadLettered.containsKey(id)) {
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

	/**
	 * Whether a successful run may have settled the task. One that ended after its instance's
	 * consumer, stopping while it ran, waited the shutdown timeout and handed the task back did
	 * not: whatever a handler does after that does not settle its task (docs/delayed-tasks.md,
	 * "Shutdown"), so another run must have handled it.
	 */
	private boolean settledBySuccess(String id) {
		if (!this.ledger.handled(id)) {
			return false;
		}
		int outlived = 0;
		for (TaskLedger.Run run : this.ledger.runsOf(id)) {
			if (!run.succeeded()) {
				continue;
			}
			long[] stop = this.consumerStops.stream()
				.filter((candidate) -> candidate[0] == run.instance() && candidate[1] >= run.startMillis()
						&& run.endMillis() > candidate[1] + OUTLIVED_STOP_MILLIS)
				.findFirst()
				.orElse(null);
			if (stop != null) {
				outlived++;
				this.timeline.record(id, "instance-" + run.instance() + "'s run of attempt " + run.attempt()
						+ " ended at " + run.endMillis() + " ms, after its consumer began to stop at " + stop[1]
						+ " ms and gave the task back: it does not settle the task");
			}
		}
		this.outlivedStops += outlived;
		return this.ledger.successes.get(id).get() > outlived;
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
					TaskLedger.FailedSchedule held = (run.dueAtMillis() > cancelledAtWall) ? heldSchedule(cancel) : null;
					if (held != null) {
						// Documented: bytes already on their way to Redis may still run.
						this.storedAfterCancelByHeldSchedule++;
						this.timeline.record(cancel.id(), "stored again after its cancel by the schedule through instance-"
								+ held.instance() + " called at " + held.startMillis()
								+ " ms, which timed out while its requests were held back (documented)");
						continue;
					}
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
	 * A schedule of the cancelled task that was called before the cancel and failed while its
	 * instance's requests were held back (a slow link, a paused or frozen server): its request may
	 * have reached Redis after the cancel. {@code null} if there is none.
	 */
	private TaskLedger.@Nullable FailedSchedule heldSchedule(TaskLedger.Action cancel) {
		return this.ledger.failedSchedules.stream()
			.filter((failed) -> failed.id().equals(cancel.id()) && failed.startMillis() < cancel.startMillis()
					&& !this.heldRequests.inReachThroughout(failed.instance(), -1, failed.startMillis(),
							failed.endMillis()))
			.findFirst()
			.orElse(null);
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
			// A kill after the task was stored may have emptied Redis under a delivery claimed earlier.
			boolean excused = !later.isEmpty() || killedSince(storedBy(run.id()));
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

	/**
	 * Every successful run of a task after its first, a duplicate, has a documented cause that was
	 * recorded while the run went on. Each duplicate is judged against the successful run before
	 * it: that run's delivery was not settled, and one of these says why:
	 * <ul>
	 * <li>the task was stored again: the producer tried more than once (its scheduling was
	 * accepted only on a later try, or no try answered), and the duplicate's delivery is of a task
	 * scheduled (on the Redis clock) after the earlier run started, so a failed try had stored it
	 * and it was done before another try stored it anew;</li>
	 * <li>the application redrove the task's dead letter after a task scheduled again under its
	 * id had begun to run ({@link #redrivenBetween});</li>
	 * <li>Redis lost writes (a window of {@code kills}: a kill without persistence, a failover)
	 * between the earlier run's start and the duplicate's;</li>
	 * <li>the earlier run's consumer began to stop (a consumer restart) between the earlier run's
	 * start and the duplicate's: a handler still running at the shutdown timeout has its task
	 * handed back, and an acknowledgement not sent by the deadline is dropped;</li>
	 * <li>Baton counted the earlier run's delivery in {@code baton.queue.stale}: its visibility ran
	 * out and Redis answered an extension or the acknowledgement as stale, or the acknowledgement
	 * was dropped, the visibility not extended in time ({@code operation=ack-dropped}). Counts carry no task
	 * id, so they are matched: each count of the earlier run's instance, made no earlier than
	 * {@value #STALE_BEFORE_START_MILLIS} ms before that run started, explains as many duplicates
	 * as it counted, and no more; and only if the instance was out of reach for at least
	 * {@link Visibility#minOutageMillis()} at a stretch meanwhile (see {@link #outOfReachLongEnough}).</li>
	 * </ul>
	 * A duplicate with none of these is a violation: a lost visibility that Baton neither
	 * reported nor was caused by a recorded fault long enough to cause it.
	 */
	private void checkDuplicates() {
		List<Duplicate> uncaused = new java.util.ArrayList<>();
		Map<String, List<TaskLedger.Run>> successes = this.ledger.history.stream()
			.filter(TaskLedger.Run::succeeded)
			.collect(Collectors.groupingBy(TaskLedger.Run::id));
		successes.forEach((id, runs) -> {
			List<TaskLedger.Run> ordered = runs.stream()
				.sorted(java.util.Comparator.comparingLong(TaskLedger.Run::startMillis))
				.toList();
			for (int i = 1; i < ordered.size(); i++) {
				Duplicate duplicate = new Duplicate(ordered.get(i - 1), ordered.get(i));
				DuplicateCause cause = recordedCause(duplicate);
				if (cause != null) {
					this.duplicatesByCause[cause.ordinal()]++;
					this.timeline.record(id, "duplicate of instance-" + duplicate.earlier().instance() + "'s attempt "
							+ duplicate.earlier().attempt() + ": " + cause.describe);
				}
				else {
					uncaused.add(duplicate);
				}
			}
		});
		matchStaleCounts(uncaused);
	}

	private DuplicateCause recordedCause(Duplicate duplicate) {
		TaskLedger.Run earlier = duplicate.earlier();
		TaskLedger.Run later = duplicate.later();
		boolean triedAgain = this.ledger.scheduledAgain.containsKey(later.id())
				|| this.ledger.unknown.containsKey(later.id());
		if (triedAgain && later.scheduledAtMillis() > earlier.startWallMillis()) {
			return DuplicateCause.STORED_AGAIN;
		}
		if (this.kills.stream().anyMatch((kill) -> kill[0] <= later.startMillis() && kill[1] >= earlier.startMillis())) {
			return DuplicateCause.REDIS_LOST_WRITES;
		}
		if (redrivenBetween(earlier, later)) {
			return DuplicateCause.REDRIVEN;
		}
		if (this.consumerStops.stream()
			.anyMatch((stop) -> stop[0] == earlier.instance() && stop[1] >= earlier.startMillis()
					&& stop[1] <= later.startMillis())) {
			return DuplicateCause.CONSUMER_STOPPED;
		}
		return null;
	}

	/**
	 * Whether the application redrove the task's dead letter after the earlier run began: a dead
	 * letter does not reserve its id, so a task scheduled again under it may run while the dead
	 * letter waits, and a redrive once that task is done runs the dead letter too (documented). A
	 * redrive that timed out may have run at any time after it was called.
	 */
	private boolean redrivenBetween(TaskLedger.Run earlier, TaskLedger.Run later) {
		return this.ledger.actions.stream()
			.anyMatch((redrive) -> redrive.kind() == TaskLedger.ActionKind.REDRIVE && redrive.id().equals(later.id())
					&& redrive.startMillis() <= later.startMillis()
					&& (redrive.result() == TaskLedger.Result.UNKNOWN || (redrive.result() == TaskLedger.Result.TRUE
							&& redrive.endMillis() >= earlier.startMillis())));
	}

	/** Explains what it can of the duplicates by Baton's stale counts, each count at most once; the rest are violations. */
	private void matchStaleCounts(List<Duplicate> duplicates) {
		Map<Integer, List<int[]>> left = new java.util.HashMap<>();
		List<TaskLedger.StaleCount> counts = this.ledger.staleCounts.stream()
			.sorted(java.util.Comparator.comparingLong(TaskLedger.StaleCount::atMillis))
			.toList();
		for (int i = 0; i < counts.size(); i++) {
			left.computeIfAbsent(counts.get(i).instance(), (instance) -> new java.util.ArrayList<>())
				.add(new int[] { i, counts.get(i).count() });
		}
		// Earliest first, each takes the earliest count it may: a count explains any run that started before it.
		List<Duplicate> ordered = duplicates.stream()
			.sorted(java.util.Comparator.comparingLong((Duplicate duplicate) -> duplicate.earlier().startMillis()))
			.toList();
		for (Duplicate duplicate : ordered) {
			TaskLedger.Run earlier = duplicate.earlier();
			int[] match = left.getOrDefault(earlier.instance(), List.of())
				.stream()
				.filter((unit) -> unit[1] > 0 && counts.get(unit[0])
					.atMillis() >= earlier.startMillis() - STALE_BEFORE_START_MILLIS
						&& outOfReachLongEnough(earlier, counts.get(unit[0])))
				.findFirst()
				.orElse(null);
			if (match != null) {
				match[1]--;
				TaskLedger.StaleCount count = counts.get(match[0]);
				this.duplicatesByCause[DuplicateCause.COUNTED_STALE.ordinal()]++;
				this.timeline.record(earlier.id(), "duplicate of instance-" + earlier.instance() + "'s attempt "
						+ earlier.attempt() + ": " + DuplicateCause.COUNTED_STALE.describe + " (operation "
						+ count.operation() + ", at " + count.atMillis() + " ms)");
				continue;
			}
			this.unexplainedDuplicates++;
			TaskLedger.Run later = duplicate.later();
			String nearby = this.ledger.staleCounts.stream()
				.filter((count) -> count.instance() == earlier.instance())
				.map((count) -> count.count() + " " + count.operation() + " at " + count.atMillis() + " ms")
				.collect(Collectors.joining(", "));
			this.violations.add(later.startMillis(), later.id(), NO_UNEXPLAINED_DUPLICATE,
					"instance-" + later.instance() + " ran attempt " + later.attempt() + " successfully at "
							+ later.startMillis() + " ms, after instance-" + earlier.instance() + "'s attempt "
							+ earlier.attempt() + " had succeeded (" + earlier.startMillis() + " to "
							+ earlier.endMillis() + " ms" + (earlier.lost() ? ", its delivery seen lost" : "")
							+ "), with no recorded cause: no Redis data loss or consumer stop of instance-"
							+ earlier.instance() + " in between, not stored again (scheduled at "
							+ later.scheduledAtMillis() + "), and no baton.queue.stale count of instance-"
							+ earlier.instance() + " since its start, after " + this.visibility.minOutageMillis()
							+ " ms out of reach, left unmatched; its counts: " + (nearby.isEmpty() ? "none" : nearby)
							+ "; longest out of reach from a visibility timeout before its start to the later run: "
							+ this.outages.longest(earlier.instance(),
									earlier.startMillis() - this.visibility.timeoutMillis(),
									later.startMillis(), earlier.earliestClaimMillis())
							+ " ms");
		}
	}

	/**
	 * Whether the run's instance was out of reach for {@link Visibility#minOutageMillis()} at a stretch while
	 * it may have held the delivery: from a visibility timeout before the run started (it may have
	 * been claimed ahead) until Baton counted it stale. A count without one is itself a loss the
	 * docs do not allow: one lost call, a reset or a short stall must cost no delivery.
	 */
	private boolean outOfReachLongEnough(TaskLedger.Run earlier, TaskLedger.StaleCount count) {
		long from = earlier.startMillis() - this.visibility.timeoutMillis();
		return this.outages.longest(earlier.instance(), from, count.atMillis(), earlier.earliestClaimMillis())
				>= this.visibility.minOutageMillis();
	}

	/** A successful run of a task after an earlier successful run of it. */
	private record Duplicate(TaskLedger.Run earlier, TaskLedger.Run later) {

	}

	/** What the harness or Baton recorded that lets a task run twice, as docs/guarantees.md lists it. */
	enum DuplicateCause {

		STORED_AGAIN("stored again by a scheduling retry after it had run"),

		REDIS_LOST_WRITES("Redis lost writes in between"),

		CONSUMER_STOPPED("its consumer was stopped mid-work"),

		COUNTED_STALE("Baton counted a stale delivery of its instance"),

		REDRIVEN("its dead letter redriven after a task scheduled again under its id had run");

		private final String describe;

		DuplicateCause(String describe) {
			this.describe = describe;
		}

	}

	/**
	 * When the task was in Redis at the latest: when it was accepted, or for one whose every
	 * schedule timed out (stored all the same), when it first ran.
	 */
	private long storedBy(String id) {
		Long accepted = this.ledger.accepted.get(id);
		return (accepted != null) ? accepted
				: this.ledger.runsOf(id).stream().mapToLong(TaskLedger.Run::startMillis).min().orElse(Long.MAX_VALUE);
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
				+ this.deadLettered.size() + " dead-lettered, " + this.cancelled + " cancelled, " + this.outlivedStops
				+ " successes that outlived their consumer's stop (not settling), "
				+ this.ledger.history.stream().filter(TaskLedger.Run::async).count() + " async runs, "
				+ this.rescheduledRunsChecked + " runs checked against a new due time, " + this.redrivesChecked
				+ " redrives checked, " + this.duplicatesOfRescheduled + " rescheduled tasks handled more than once, "
				+ this.lostWithRedis
				+ " lost with a Redis kill (documented), " + twice.size() + " handled more than once (" + extra
				+ " extra runs: " + this.duplicatesByCause[DuplicateCause.COUNTED_STALE.ordinal()]
				+ " after a counted stale delivery or dropped acknowledgement, "
				+ this.duplicatesByCause[DuplicateCause.CONSUMER_STOPPED.ordinal()]
				+ " after a consumer stop, " + this.duplicatesByCause[DuplicateCause.REDIS_LOST_WRITES.ordinal()]
				+ " after Redis lost writes, " + this.duplicatesByCause[DuplicateCause.STORED_AGAIN.ordinal()]
				+ " stored again by a scheduling retry, " + this.duplicatesByCause[DuplicateCause.REDRIVEN.ordinal()]
				+ " after a redrive of their dead letter, " + this.unexplainedDuplicates + " without a cause), "
				+ this.ledger.unknown.size() + " with unknown scheduling outcome (" + handledUnknown
				+ " of them handled), " + this.storedAfterCancelByHeldSchedule
				+ " stored again after a cancel by a schedule that timed out while its requests were held back";
	}

}
