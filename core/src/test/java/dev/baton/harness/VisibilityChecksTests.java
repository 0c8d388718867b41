package dev.baton.harness;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The visibility check on deadlines and runs written by hand: a deadline seen close while a
 * handler ran is flagged unless its instance was out of reach long enough or stopping its
 * consumer; one while no handler ran is not judged.
 */
class VisibilityChecksTests {

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final TaskLedger ledger = new TaskLedger();

	@Test
	void nearDeadlineWhileAHandlerRanWithRedisInReachIsAViolation() {
		run("t-1", 0, 1_000, 6_000);

		check(List.of(new Outages.Window(0, 3_000, 3_500)), List.of(), near("t-1", 4_000));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-1");
		assertThat(this.violations.all().get(0).text()).contains("instance-0's attempt 1 ran",
				"out of reach at most 500 ms");
	}

	@Test
	void nearDeadlineAfterTheInstanceWasOutOfReachLongEnoughOrWhileItsConsumerStoppedIsExcused() {
		run("t-1", 0, 1_000, 6_000);
		run("t-2", 1, 1_000, 6_000);

		check(List.of(new Outages.Window(-1, 2_000, 3_500)), List.<long[]>of(new long[] { 1, 4_500, 9_000 }),
				near("t-1", 4_000), near("t-2", 5_000));

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void nearDeadlineAfterTheRunningHandlersInstanceCountedItsDeliveryStaleIsAnotherConsumersAndNotJudged() {
		// t-1: instance 0 counted a stale delivery at 3,000 and its run ended lost: the deadline seen
		// at 4,000 is of another consumer's delivery. t-2: counted only after the deadline was seen.
		run("t-1", 0, 1, 1_000, 6_000, true);
		run("t-2", 1, 1, 1_000, 6_000, true);
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 3_000, "extend", 1));
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(1, 4_500, "extend", 1));

		check(List.of(), List.of(), near("t-1", 4_000), near("t-2", 4_000));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	@Test
	void outagesAFewMillisecondsApartAreOneStretch() {
		run("t-1", 0, 1_000, 6_000);
		run("t-2", 1, 1_000, 6_000);

		// Instance 0: 500 ms, 60 ms in reach, 400 ms; instance 1: the same with 400 ms in reach.
		check(List.of(new Outages.Window(0, 2_500, 3_000), new Outages.Window(0, 3_060, 3_460),
				new Outages.Window(1, 2_500, 3_000), new Outages.Window(1, 3_400, 3_800)), List.of(),
				near("t-1", 4_000), near("t-2", 4_000));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	@Test
	void nearDeadlineWhileNoHandlerRanTheTaskIsNotJudged() {
		run("t-1", 0, 1_000, 2_000);

		check(List.of(), List.of(), near("t-1", 4_000), near("t-2", 4_000));

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void runOvertakenByAnotherInstanceThatNeverSawItsLossWhileInReachIsAViolation() {
		// t-1: overtaken at 4,000, in reach from 4,500 to its end at 7,000, never told.
		run("t-1", 0, 1, 1_000, 7_000, false);
		run("t-1", 1, 2, 4_000, 4_100, true);
		// t-2: the same, told.
		run("t-2", 0, 1, 1_000, 7_000, true);
		run("t-2", 1, 2, 4_000, 4_100, false);
		// t-3: overtaken, but its instance was in reach only for the last 800 ms.
		run("t-3", 2, 1, 1_000, 7_000, false);
		run("t-3", 1, 2, 4_000, 4_100, false);
		// t-4: an earlier attempt of another instance that started later is not a claim after it.
		run("t-4", 0, 2, 1_000, 7_000, false);
		run("t-4", 1, 1, 4_000, 4_100, false);

		VisibilityChecks checks = new VisibilityChecks(this.ledger,
				new Outages(List.of(new Outages.Window(0, 2_000, 4_500), new Outages.Window(2, 2_000, 6_200))),
				List.of(), Visibility.SHORT, this.violations);
		checks.checkLossesTold(List.of());

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-1");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(VisibilityChecks.LOSS_TOLD);
		assertThat(this.violations.all().get(0).text()).contains("in reach from 4500 ms");
	}

	/** A deadline seen 100 ms ahead. */
	private QueueWatch.NearDeadline near(String id, long seenAt) {
		return new QueueWatch.NearDeadline(id, seenAt + 100, seenAt);
	}

	private void run(String id, int instance, int attempt, long start, long end, boolean lost) {
		this.ledger.ran(new TaskLedger.Run(id, instance, attempt, 10_000, start, 10_000 + start, end, true, false, false,
				0, lost));
	}

	/** A successful run on the instance, attempt 1. */
	private void run(String id, int instance, long start, long end) {
		this.ledger.ran(new TaskLedger.Run(id, instance, 1, 10_000, start, 10_000 + start, end, true, false, false));
	}

	private void check(List<Outages.Window> outages, List<long[]> consumerStops, QueueWatch.NearDeadline... nearDeadlines) {
		new VisibilityChecks(this.ledger, new Outages(outages), consumerStops, Visibility.SHORT, this.violations)
			.check(List.of(nearDeadlines));
	}

}
