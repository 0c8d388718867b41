package dev.baton.harness;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue checker on ledgers written by hand: a task gone without a trace is flagged, unless
 * Redis was killed after it was accepted.
 */
class QueueChecksTests {

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final TaskLedger ledger = new TaskLedger();

	@Test
	void acceptedTaskNeverHandledIsAViolationAndHandledOnesAreNot() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		this.ledger.ran("t-1", true);
		this.ledger.ran("t-2", false);

		new QueueChecks(this.ledger, List.of(), this.violations, this.timeline).check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	@Test
	void taskGoneWithARedisKillAfterItWasAcceptedIsExcusedButNotOneAcceptedAfterTheKill() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 900L);

		new QueueChecks(this.ledger, List.<long[]>of(new long[] { 500, 700 }), this.violations, this.timeline)
			.check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

}
