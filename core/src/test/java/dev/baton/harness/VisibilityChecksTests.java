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
	void nearDeadlineWhileNoHandlerRanTheTaskIsNotJudged() {
		run("t-1", 0, 1_000, 2_000);

		check(List.of(), List.of(), near("t-1", 4_000), near("t-2", 4_000));

		assertThat(this.violations.all()).isEmpty();
	}

	/** A deadline seen 100 ms ahead. */
	private VisibilityWatch.NearDeadline near(String id, long seenAt) {
		return new VisibilityWatch.NearDeadline(id, seenAt + 100, seenAt);
	}

	/** A successful run on the instance, attempt 1. */
	private void run(String id, int instance, long start, long end) {
		this.ledger.ran(new TaskLedger.Run(id, instance, 1, 10_000, start, 10_000 + start, end, true, false, false));
	}

	private void check(List<Outages.Window> outages, List<long[]> consumerStops, VisibilityWatch.NearDeadline... nearDeadlines) {
		new VisibilityChecks(this.ledger, new Outages(outages), consumerStops, this.violations)
			.check(List.of(nearDeadlines));
	}

}
