package dev.baton.harness;

import java.util.Comparator;
import java.util.List;

/**
 * A container with a free worker takes the due tasks it can reach: "one failing partition holds up
 * no other". A task that {@link QueueWatch} saw due and unclaimed is a violation if an instance had
 * been free for {@link #WAIT_MILLIS} of its wait (since it fell due, or since a delivery of it ran
 * out, which puts it back with its due time): consuming, fewer handlers under way than its
 * workers, in reach of the primary of the task's partition (a paused Cluster primary keeps only its
 * own partitions out of reach, {@link Outages.Window#node()}), and not with most of its capacity
 * held by runs of tasks on another primary out of reach (their acknowledgements hold a permit
 * until their first try fails, their failed runs a worker while the retry is tried). The bound allows a claim that waits a round for a partition that
 * does not answer, and a missed wake-up (claims while the wake-up subscription is missing are
 * retried within a second).
 */
final class ProgressChecks {

	static final String PROGRESS = "One failing partition holds up no other";

	/**
	 * How long an instance may stay free while a due task it could take waits unclaimed: an idle
	 * poll (2 s here: a wake-up may be missed), a claim's round (0.5 s), a reconnect's slack (1 s)
	 * and another half second.
	 */
	static final long WAIT_MILLIS = 4000;

	/** How long after its link or its primary is back an instance counts as in reach: a reconnect. */
	private static final long RECONNECT_MILLIS = 1000;

	/** The resolution of the check: handlers under way are counted per slot of this length. */
	private static final long STEP_MILLIS = 50;

	/** Each instance's workers: the harness endpoint's concurrency. */
	private static final int WORKERS = 2;

	/**
	 * Acknowledgements waiting for another primary that may hold an instance's room to claim. Each
	 * lends its permit back, up to the capacity (workers and prefetch) at once; those past that
	 * hold one each, and a free worker's handler, under way, one more.
	 */
	static final int HELD_CAPACITY = 2 * (WORKERS + Visibility.PREFETCH) - WORKERS;

	private final TaskLedger ledger;

	private final Outages outages;

	private final List<long[]> consumerStops;

	private final PartitionNodes nodes;

	private final Visibility visibility;

	private final int instances;

	private final Violations violations;

	private int waited;

	private long longestFree;

	/**
	 * @param consumerStops consumer restarts, {instance, start, end} in ms from the run's start
	 */
	ProgressChecks(TaskLedger ledger, Outages outages, List<long[]> consumerStops, PartitionNodes nodes,
			Visibility visibility, int instances, Violations violations) {
		this.ledger = ledger;
		this.visibility = visibility;
		this.outages = outages;
		this.consumerStops = List.copyOf(consumerStops);
		this.nodes = nodes;
		this.instances = instances;
		this.violations = violations;
	}

	/**
	 * @param waiting the due tasks the watch saw unclaimed
	 * @param inFlight the deliveries the watch saw near or past their deadline: a task whose
	 * delivery ran out (a claim whose reply was lost, so that nobody ran it) waits again only from
	 * that deadline, whatever its due time
	 */
	void check(List<QueueWatch.Waiting> waiting, List<QueueWatch.NearDeadline> inFlight) {
		List<QueueWatch.Waiting> ordered = waiting.stream()
			.sorted(Comparator.comparingLong(QueueWatch.Waiting::seenMillis))
			.toList();
		long last = ordered.isEmpty() ? 0 : ordered.get(ordered.size() - 1).seenMillis();
		boolean[][][] busy = busy(last);
		long[] reportedUntil = new long[this.nodes.partitions()];
		for (QueueWatch.Waiting seen : ordered) {
			long age = seen.seenMillis() - waitingSince(seen, inFlight);
			this.waited += (age >= WAIT_MILLIS) ? 1 : 0;
			int node = this.nodes.nodeOfPartition(seen.partition());
			for (int instance = 0; instance < this.instances; instance++) {
				long freeFor = Math.min(age, freeFor(busy[instance][node + 1], seen.seenMillis()));
				if (freeFor < Math.min(WAIT_MILLIS, this.longestFree)
						|| heldByOthers(instance, node, seen.seenMillis()) >= HELD_CAPACITY) {
					continue;
				}
				this.longestFree = Math.max(this.longestFree, freeFor);
				if (freeFor >= WAIT_MILLIS && seen.seenMillis() - WAIT_MILLIS >= reportedUntil[seen.partition()]) {
					this.violations.add(seen.seenMillis(), "partition-" + seen.partition(), PROGRESS,
							"a task of partition " + seen.partition() + " (primary-" + node + "), " + seen.id() + ", due at "
									+ seen.dueMillis() + " ms was still unclaimed at " + seen.seenMillis()
									+ " ms, though instance-" + instance + " had had a free worker, consumed and "
									+ "reached the partition for " + freeFor + " ms; its runs around then: "
									+ runsAround(instance, seen.seenMillis() - freeFor));
					reportedUntil[seen.partition()] = seen.seenMillis();
				}
			}
		}
	}

	/** When the task began to wait: its due time, or the last deadline of a delivery of it before the sample. */
	private static long waitingSince(QueueWatch.Waiting seen, List<QueueWatch.NearDeadline> inFlight) {
		return inFlight.stream()
			.filter((delivery) -> delivery.id().equals(seen.id()) && delivery.deadlineMillis() <= seen.seenMillis())
			.mapToLong(QueueWatch.NearDeadline::deadlineMillis)
			.reduce(seen.dueMillis(), Math::max);
	}

	/** How long before {@code atMillis} the slots were free without a break. */
	private static long freeFor(boolean[] busy, long atMillis) {
		int slot = (int) Math.min(atMillis / STEP_MILLIS, busy.length - 1);
		int from = slot;
		while (from >= 0 && !busy[from]) {
			from--;
		}
		return (slot - from) * STEP_MILLIS;
	}

	/**
	 * Per instance, node (+1: -1 is the only server) and slot, whether the instance could not take
	 * a task of the node's partitions then: its consumer stopped (or starting for
	 * {@link #RECONNECT_MILLIS}), the node or its link out of reach (or reconnecting as long), or
	 * every worker under way.
	 */
	private boolean[][][] busy(long lastSeenMillis) {
		long last = Math.max(lastSeenMillis,
				this.ledger.history.stream().mapToLong(TaskLedger.Run::endMillis).max().orElse(0));
		int slots = (int) (last / STEP_MILLIS) + 1;
		int[][] underWay = new int[this.instances][slots];
		for (TaskLedger.Run run : this.ledger.history) {
			for (long slot = Math.max(0, run.startMillis() / STEP_MILLIS); slot <= run.endMillis() / STEP_MILLIS; slot++) {
				underWay[run.instance()][(int) slot]++;
			}
		}
		boolean[][][] busy = new boolean[this.instances][FaultSchedule.CLUSTER_PRIMARIES + 1][slots];
		for (int instance = 0; instance < this.instances; instance++) {
			for (int node = -1; node < FaultSchedule.CLUSTER_PRIMARIES; node++) {
				for (int slot = 0; slot < slots; slot++) {
					long start = slot * STEP_MILLIS;
					busy[instance][node + 1][slot] = underWay[instance][slot] >= WORKERS
							|| stopped(instance, start - RECONNECT_MILLIS, start + STEP_MILLIS)
							|| !this.outages.inReachThroughout(instance, node, start - RECONNECT_MILLIS, start + STEP_MILLIS);
				}
			}
		}
		return busy;
	}

	private boolean stopped(int instance, long from, long to) {
		return this.consumerStops.stream().anyMatch((stop) -> stop[0] == instance && stop[1] <= to && stop[2] >= from);
	}

	/**
	 * Runs of the instance whose task's primary (not the node's) it could not reach at {@code at},
	 * ended since that began: their acknowledgements wait for it.
	 */
	private long heldByOthers(int instance, int node, long at) {
		return this.ledger.history.stream().filter((run) -> run.instance() == instance).filter((run) -> {
			int other = this.nodes.nodeOf(run.id());
			long since = (other != node) ? this.outages.outOfReachSince(instance, other, at) : -1;
			// A run that ended just before may still be acknowledging.
			return since >= 0 && run.endMillis() >= since - RECONNECT_MILLIS && run.endMillis() <= at;
		}).count();
	}

	/** The instance's runs under way within a visibility timeout before the moment, and the first after it. */
	private String runsAround(int instance, long atMillis) {
		long from = atMillis - this.visibility.timeoutMillis();
		return this.ledger.history.stream()
			.filter((run) -> run.instance() == instance && run.endMillis() >= from)
			.sorted(Comparator.comparingLong(TaskLedger.Run::startMillis))
			.takeWhile((run) -> run.startMillis() <= atMillis + WAIT_MILLIS)
			.map((run) -> run.id() + " (primary-" + this.nodes.nodeOf(run.id()) + ", " + run.startMillis() + " to "
					+ run.endMillis() + " ms" + (run.succeeded() ? "" : ", failed") + ")")
			.collect(java.util.stream.Collectors.joining(", "));
	}

	String summary() {
		return this.waited + " samples of a task due " + WAIT_MILLIS + " ms or more and unclaimed; the longest an "
				+ "instance stayed free meanwhile " + this.longestFree + " ms";
	}

}
