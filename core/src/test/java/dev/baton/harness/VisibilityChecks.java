package dev.baton.harness;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The container keeps a running handler's task invisible: "while a handler runs, and while its
 * acknowledgement is being retried, the container extends the task's visibility", a third of the
 * visibility timeout after the last confirmed extension, so that the deadline stays at least two
 * thirds of the timeout ahead while Redis answers, and a failed extension is tried again within a
 * tenth of a third. A deadline that {@link QueueWatch} saw less than
 * {@link Visibility#nearMillis()} ahead (or past) while a handler ran the task is a violation
 * unless every instance running it then had been out of reach for
 * {@link Visibility#minOutageMillis()} at a stretch in the visibility timeout before, or was
 * stopping its consumer, or had already lost the delivery to another consumer. It is what a
 * duplicate needs, checked whether or not another consumer claimed the task.
 */
final class VisibilityChecks {

	static final String LOSS_TOLD = "Stale consumers cannot corrupt state";

	/** A run's first and last moments, in which its delivery may be claimed or settled meanwhile. */
	private static final long EDGE_MILLIS = 50;

	private final TaskLedger ledger;

	private final Outages outages;

	private final List<long[]> consumerStops;

	private final Visibility visibility;

	private final Violations violations;

	private int seen;

	private int lapsed;

	private int whileRunning;

	private int excused;

	private int overtaken;

	/**
	 * @param consumerStops consumer restarts, {instance, start, end} in ms from the run's start
	 */
	VisibilityChecks(TaskLedger ledger, Outages outages, List<long[]> consumerStops, Visibility visibility,
			Violations violations) {
		this.ledger = ledger;
		this.visibility = visibility;
		this.outages = outages;
		this.consumerStops = List.copyOf(consumerStops);
		this.violations = violations;
	}

	void check(List<QueueWatch.NearDeadline> nearDeadlines) {
		this.seen = nearDeadlines.size();
		for (QueueWatch.NearDeadline near : nearDeadlines) {
			this.lapsed += near.lapsed() ? 1 : 0;
			long seenAt = near.seenMillis();
			List<TaskLedger.Run> running = this.ledger.runsOf(near.id())
				.stream()
				.filter((run) -> run.startMillis() + EDGE_MILLIS < seenAt && seenAt < run.endMillis() - EDGE_MILLIS)
				.toList();
			if (running.isEmpty()) {
				continue;
			}
			this.whileRunning++;
			if (running.stream().anyMatch((run) -> excused(run, seenAt))) {
				this.excused++;
				continue;
			}
			this.violations.add(seenAt, near.id(), QueueChecks.NO_UNEXPLAINED_DUPLICATE,
					"the task's visibility deadline, " + near.deadlineMillis() + " ms, was " + (near.deadlineMillis() - seenAt)
							+ " ms ahead at " + seenAt + " ms while " + running.stream()
								.map((run) -> "instance-" + run.instance() + "'s attempt " + run.attempt() + " ran ("
										+ run.startMillis() + " to " + run.endMillis() + " ms, out of reach at most "
										+ longestOutage(run, seenAt) + " ms at a stretch in the visibility timeout before)")
								.collect(Collectors.joining(" and "))
							+ ": its container did not extend it in time, with Redis in reach");
		}
	}

	/**
	 * A run whose task another instance started while it went on, and that went on for
	 * {@link Visibility#toldWithinMillis()} after its own instance was in reach again (and not stopping its
	 * consumer), ended with {@code TaskContext.isLost()} true: its container learned of the loss
	 * from Redis's answer to its next extension and told it.
	 * @param dataLoss windows in which Redis forgot its data, which may hand a task out again untold
	 */
	void checkLossesTold(List<long[]> dataLoss) {
		for (TaskLedger.Run run : this.ledger.history) {
			if (run.lost()) {
				continue;
			}
			for (TaskLedger.Run other : this.ledger.runsOf(run.id())) {
				// A later attempt started meanwhile elsewhere: a claim of the task after this run's delivery.
				if (other.instance() == run.instance() || other.attempt() <= run.attempt()
						|| other.startMillis() <= run.startMillis() || other.startMillis() >= run.endMillis()) {
					continue;
				}
				this.overtaken++;
				long since = this.outages.inReachSince(run.instance(), other.startMillis(), run.endMillis());
				boolean stopping = this.consumerStops.stream()
					.anyMatch((stop) -> stop[0] == run.instance() && stop[1] <= run.endMillis() && stop[2] >= since);
				boolean forgotten = dataLoss.stream()
					.anyMatch((loss) -> loss[0] <= run.endMillis() && loss[1] >= run.startMillis());
				if (run.endMillis() - since >= this.visibility.toldWithinMillis() && !stopping && !forgotten) {
					this.violations.add(run.endMillis(), run.id(), LOSS_TOLD,
							"instance-" + run.instance() + "'s attempt " + run.attempt() + " ran from " + run.startMillis()
									+ " to " + run.endMillis() + " ms and never saw isLost(), though instance-"
									+ other.instance() + " started attempt " + other.attempt() + " at "
									+ other.startMillis() + " ms and its own instance was in reach from " + since
									+ " ms on");
					break;
				}
			}
		}
	}

	private boolean excused(TaskLedger.Run run, long atMillis) {
		boolean stopping = this.consumerStops.stream()
			.anyMatch((stop) -> stop[0] == run.instance() && stop[1] <= atMillis && atMillis <= stop[2]);
		return stopping || longestOutage(run, atMillis) >= this.visibility.minOutageMillis() || lostBefore(run, atMillis);
	}

	/**
	 * Whether the run had lost its delivery before the deadline was seen, so that the in-flight
	 * entry was another consumer's: it ended with {@code isLost()} true, and its instance counted
	 * a delivery stale since it started (counts carry no task id: one of another task excuses it
	 * too). A deadline the run's own container let run down is counted stale only after it was seen.
	 */
	private boolean lostBefore(TaskLedger.Run run, long atMillis) {
		return run.lost() && this.ledger.staleCounts.stream()
			.anyMatch((count) -> count.instance() == run.instance() && count.atMillis() >= run.startMillis()
					&& count.atMillis() <= atMillis);
	}

	private long longestOutage(TaskLedger.Run run, long atMillis) {
		return this.outages.longest(run.instance(), atMillis - this.visibility.timeoutMillis(), atMillis,
				run.earliestClaimMillis());
	}

	String summary() {
		return this.seen + " visibility deadlines seen near (" + this.lapsed + " past), " + this.whileRunning
				+ " while a handler ran, " + this.excused + " of them after the instance was out of reach or stopping; "
				+ this.overtaken + " runs overtaken by another instance's run of their task";
	}

}
