package dev.baton.harness;

import java.time.Duration;
import java.util.List;

import dev.baton.lock.LockLostEvent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock checker on histories written by hand: it must flag what breaks exclusion or fencing,
 * and excuse only what the docs excuse. A checker that flags nothing would let every run pass.
 */
class LockChecksTests {

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final LockWorkload workload = new LockWorkload(this.timeline, this.violations,
			new Stalls(this.timeline), Duration.ofMillis(300), Duration.ofSeconds(1));

	private final LossReports losses = new LossReports(this.timeline);

	@Test
	void twoHoldersAtOnceNeitherToldOfALossIsAViolationOfBoth() {
		Hold first = enter("a/1", 100);
		Hold second = enter("b/1", 200);
		write(first);
		exit(second);
		exit(first);

		check(List.of());

		assertThat(this.violations.all()).extracting(Violation::invariant)
			.containsExactlyInAnyOrder(LockChecks.EXCLUSION, LockChecks.FENCING);
	}

	@Test
	void overlapWithAHolderToldOfItsLossIsExcused() {
		Hold first = enter("a/1", 100);
		Hold second = enter("b/1", 200);
		write(first);
		this.losses.lost(0, new LockLostEvent("ledger", "ledger", 100));
		exit(second);
		exit(first);

		check(List.of());

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void overlapSoonAfterARedisKillIsExcusedButATokenIssuedTwiceIsNot() {
		Hold first = enter("a/1", 100);
		Hold second = enter("b/1", 100);
		exit(second);
		exit(first);

		check(List.<long[]>of(new long[] { 0, this.timeline.now() }));

		assertThat(this.violations.all()).extracting(Violation::text)
			.singleElement()
			.asString()
			.contains("token 100 issued to both");
	}

	@Test
	void overlapOfAnnotatedMethodsIsAViolationUnlessALossOfTheirLockWasReportedWhileOneHeldIt() {
		Hold first = enterWithoutToken("a/1", "annotated:ledger");
		Hold second = enterWithoutToken("b/1", "annotated:ledger");
		exit(second);
		exit(first);
		Hold third = enterWithoutToken("a/2", "annotated:report");
		Hold fourth = enterWithoutToken("b/2", "annotated:report");
		this.losses.lost(0, new LockLostEvent("annotated:report", "annotated", 0));
		exit(fourth);
		exit(third);
		// Another name's loss, and holders without a token: neither is the same token twice.
		this.losses.lost(0, new LockLostEvent("annotated:settlement", "annotated", 0));

		check(List.of());

		assertThat(this.violations.all()).singleElement().satisfies((violation) -> {
			assertThat(violation.invariant()).isEqualTo(LockChecks.EXCLUSION);
			assertThat(violation.subject()).isEqualTo("annotated:ledger");
		});
	}

	@Test
	void aLockManagerThatClosedUnderAHolderOfItsLeaseIsAViolationUnlessItsShutdownGaveUpWaitingOrTheLeaseWasLost() {
		Object closedEarly = new Object();
		Object closedLate = new Object();
		Object gaveUp = new Object();
		Hold cut = new Hold("a/1", "ledger", 100, this.timeline.now(), closedEarly);
		Hold done = new Hold("a/2", "report", 101, this.timeline.now(), closedLate);
		Hold abandoned = new Hold("a/3", "settlement:1", 102, this.timeline.now(), gaveUp);
		Hold lost = new Hold("a/4", "report", 103, this.timeline.now(), closedEarly);
		lost.lostAtEnd = true;
		List.of(cut, done, abandoned, lost).forEach(this.workload::enter);
		this.workload.exit(done);
		Pause.millis(2);
		long closing = this.timeline.now();
		List<FaultInjector.LockShutdown> shutdowns = List.of(new FaultInjector.LockShutdown(closedEarly, closing, true),
				new FaultInjector.LockShutdown(closedLate, closing, true),
				new FaultInjector.LockShutdown(gaveUp, closing, false));
		Pause.millis(2);
		this.workload.exit(cut);
		this.workload.exit(abandoned);
		this.workload.exit(lost);

		new LockChecks(this.workload, this.losses, List.of(), Duration.ofMillis(1500)).checkShutdowns(shutdowns);

		assertThat(this.violations.all()).singleElement().satisfies((violation) -> {
			assertThat(violation.invariant()).isEqualTo(LockChecks.SHUTDOWN);
			assertThat(violation.subject()).isEqualTo("ledger");
		});
	}

	private Hold enterWithoutToken(String holder, String name) {
		Hold hold = new Hold(holder, name, Hold.NO_TOKEN, this.timeline.now());
		this.workload.enter(hold);
		return hold;
	}

	private Hold enter(String holder, long token) {
		Hold hold = new Hold(holder, "ledger", token, this.timeline.now());
		this.workload.enter(hold);
		write(hold);
		return hold;
	}

	private void write(Hold hold) {
		this.workload.register.write(hold);
	}

	private void exit(Hold hold) {
		this.workload.exit(hold);
	}

	private void check(List<long[]> kills) {
		new LockChecks(this.workload, this.losses, kills, Duration.ofMillis(1500)).checkHistory();
	}

}
