package dev.baton.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The progress check on samples and runs written by hand: a task left due and unclaimed for
 * {@link ProgressChecks#WAIT_MILLIS} while one instance could have taken it is flagged; busy
 * workers, a stopped consumer, an instance out of reach, a pause of the task's own primary, and
 * capacity held by acknowledgements waiting for another primary excuse it; a task put back when a
 * delivery of it ran out waits only from then.
 */
class ProgressChecksTests {

	/** Partition 0 on primary 0, partition 1 on primary 1. */
	private static final PartitionNodes TWO_PRIMARIES = new PartitionNodes(new int[] { 0, 1 });

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final TaskLedger ledger = new TaskLedger();

	@Test
	void aTaskLeftDueWhileAnInstanceHadAFreeWorkerIsAViolation() {
		check(List.of(), List.of(), waiting(0, 1_000, 5_500));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("partition-0");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(ProgressChecks.PROGRESS);
		assertThat(this.violations.all().get(0).text()).contains("due at 1000 ms", "instance-0 had had a free worker");
	}

	/**
	 * Cluster seed 4354692402397345219: a claim that a paused primary ran once the pause ended took
	 * tasks due long before, and its reply was lost (its instance's link black-holed), so nobody
	 * ran them or handed them back; they waited in flight for the visibility timeout and were put
	 * back with their due time, and the next claim took them at once.
	 */
	@Test
	void aTaskPutBackWhenADeliveryOfItRanOutWaitsFromThatDeadlineNotFromItsDueTime() {
		check(List.of(), List.of(), List.of(new QueueWatch.NearDeadline("t-waiting", 5_450, 4_000)),
				waiting(0, 1_000, 5_500));
		assertThat(this.violations.all()).isEmpty();

		check(List.of(), List.of(), List.of(new QueueWatch.NearDeadline("t-other", 5_450, 4_000),
				new QueueWatch.NearDeadline("t-waiting", 5_600, 4_000)), waiting(0, 1_000, 5_500));
		assertThat(this.violations.all()).as("deliveries of other tasks, or ending after the sample")
			.extracting(Violation::subject)
			.containsExactly("partition-0");
	}

	@Test
	void aPauseOfTheTasksOwnPrimaryExcusesTheWaitAndAPauseOfAnotherDoesNot() {
		check(List.of(new Outages.Window(-1, 1_000, 5_000, false, 0)), List.of(), waiting(0, 1_000, 5_500),
				waiting(1, 1_000, 5_500));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("partition-1");
	}

	@Test
	void anInstanceIsFreeOnlyIfConsumingInReachWithAnIdleWorkerAndMostOfItsCapacity() {
		// Instances 0 and 1 busy; what instance 2 did from 2,000 to 6,000 (and a reconnect
		// before: from 1,000) decides.
		assertThat(flagged(List.of(), List.of(), 0)).as("free").isTrue();
		assertThat(flagged(List.of(), List.<long[]>of(new long[] { 2, 100, 400 }), 0)).as("stopped before")
			.isTrue();
		assertThat(flagged(List.of(), List.<long[]>of(new long[] { 2, 500, 1_600 }), 0)).as("just started")
			.isFalse();
		assertThat(flagged(List.of(new Outages.Window(2, 0, 400)), List.of(), 0)).as("in reach long before")
			.isTrue();
		assertThat(flagged(List.of(new Outages.Window(2, 0, 1_600)), List.of(), 0)).as("reconnecting").isFalse();
		// Capacity 6 (2 workers, prefetch 4): 6 permits lent, then 4 held beside a free worker's handler.
		assertThat(flagged(List.of(new Outages.Window(-1, 0, 7_000, false, 0)), List.of(), 9))
			.as("9 acknowledgements waiting for another primary, 6 of them with their permits lent")
			.isTrue();
		assertThat(flagged(List.of(new Outages.Window(-1, 0, 7_000, false, 0)), List.of(), 10))
			.as("10 acknowledgements waiting for another primary")
			.isFalse();
	}

	/**
	 * Whether a task of partition 1 due at 1,000 and unclaimed at 6,000 is flagged, instances 0
	 * and 1 running two handlers each meanwhile.
	 * @param heldAcks how many of instance 2's runs of partition 0's tasks ended at 1,000
	 */
	private static boolean flagged(List<Outages.Window> outages, List<long[]> consumerStops, int heldAcks) {
		ProgressChecksTests test = new ProgressChecksTests();
		for (int instance = 0; instance < 2; instance++) {
			test.run(idsOn(0, 2).get(0), instance, 0, 7_000);
			test.run(idsOn(0, 2).get(1), instance, 0, 7_000);
		}
		idsOn(0, heldAcks).forEach((id) -> test.run(id, 2, 900, 1_000));
		test.check(outages, consumerStops, waiting(1, 1_000, 6_000));
		return !test.violations.all().isEmpty();
	}

	private static List<String> idsOn(int node, int count) {
		List<String> ids = new ArrayList<>();
		IntStream.iterate(0, (i) -> i + 1)
			.mapToObj((i) -> "t-" + i)
			.filter((id) -> TWO_PRIMARIES.nodeOf(id) == node)
			.limit(count)
			.forEach(ids::add);
		return ids;
	}

	private static QueueWatch.Waiting waiting(int partition, long due, long seen) {
		return new QueueWatch.Waiting(partition, "t-waiting", due, seen);
	}

	/** A successful attempt 1 on the instance. */
	private void run(String id, int instance, long start, long end) {
		this.ledger.ran(new TaskLedger.Run(id, instance, 1, 10_000 + start, start, 10_000 + start, end, true, false,
				false));
	}

	private void check(List<Outages.Window> outages, List<long[]> consumerStops, QueueWatch.Waiting... waiting) {
		check(outages, consumerStops, List.of(), waiting);
	}

	private void check(List<Outages.Window> outages, List<long[]> consumerStops,
			List<QueueWatch.NearDeadline> inFlight, QueueWatch.Waiting... waiting) {
		new ProgressChecks(this.ledger, new Outages(outages), consumerStops, TWO_PRIMARIES, Visibility.SHORT, 3,
				this.violations)
			.check(List.of(waiting), inFlight);
	}

}
