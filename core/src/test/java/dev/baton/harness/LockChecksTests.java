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

	private static final long NEVER = Long.MAX_VALUE;

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final LockWorkload workload = new LockWorkload(this.timeline, this.violations,
			new Stalls(this.timeline), Duration.ofMillis(300), Duration.ofSeconds(1), new LockKeyReader(null));

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

	@Test
	void aRefusalWhileRedisHeldTheLockForAnOwnerOfTheCallersOwnManagerNobodyUsedIsAViolation() {
		Object manager = new Object();
		Object other = new Object();
		this.workload.keys.remember(manager, "host/aaaa");
		this.workload.keys.remember(other, "host/bbbb");
		refuse(manager, 0, "ledger", 5_000, "host/aaaa:7");
		// Held by another manager's owner, or free by then: a refusal as any other.
		refuse(manager, 0, "report", 5_000, "host/bbbb:3");
		refuse(manager, 0, "settlement:1", 5_000, null);
		// A manager none of whose holders was seen cannot be judged.
		refuse(new Object(), 1, "ledger", 5_000, "host/cccc:1");

		checkRefusals(List.of());

		assertThat(this.violations.all()).singleElement().satisfies((violation) -> {
			assertThat(violation.invariant()).isEqualTo(LockChecks.REPLAY);
			assertThat(violation.subject()).isEqualTo("ledger");
			assertThat(violation.text()).contains("host/aaaa:7");
		});
	}

	@Test
	void anOwnerOfTheCallersManagerIsExcusedByAGrantedCallOfItsInstanceOnTheLockOrOneThatLostAReplyWithinALease() {
		Object manager = new Object();
		this.workload.keys.remember(manager, "host/aaaa");
		use(0, "ledger", 4_000, Long.MAX_VALUE, 5_800, false);
		use(1, "report", 4_000, Long.MAX_VALUE, 4_100, false);
		use(0, "settlement:1", 4_000, 4_100, 4_050, false);
		use(0, "report", 1_000, 2_000, NEVER, true);
		use(0, "annotated:ledger", 4_000, 6_000, NEVER, false);
		use(0, "annotated:report", 4_000, 8_000, 6_500, false);
		// Granted less than a second after the refusal: Redis may have granted it before.
		refuse(manager, 0, "ledger", 5_000, "host/aaaa:1");
		// Another instance's call, one that ended without losing a reply, one that was refused, or
		// a waiter granted well after does not.
		refuse(manager, 0, "report", 5_000, "host/aaaa:2");
		refuse(manager, 0, "settlement:1", 5_000, "host/aaaa:3");
		refuse(manager, 0, "annotated:ledger", 5_000, "host/aaaa:6");
		refuse(manager, 0, "annotated:report", 5_000, "host/aaaa:7");
		// Within a lease (1.5 s) and a second of the lost reply, and no longer.
		refuse(manager, 0, "report", 4_400, "host/aaaa:4");
		refuse(manager, 0, "report", 4_600, "host/aaaa:5");

		checkRefusals(List.of());

		assertThat(this.violations.all()).extracting(Violation::text)
			.hasSize(5)
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:2"))
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:3"))
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:5"))
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:6"))
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:7"));
	}

	@Test
	void anOwnerOfTheCallersManagerIsExcusedByACutOfItsLinkOrAServerFaultThatEndedWithinALeaseAndASecond() {
		Object manager = new Object();
		this.workload.keys.remember(manager, "host/aaaa");
		List<FaultInjector.Applied> faults = List.of(applied(FaultKind.CUT, 0, 1_000, 2_000),
				applied(FaultKind.BLACK_HOLE, 2, 5_000, 6_000), applied(FaultKind.REDIS_KILL, -1, 10_000, 10_500));
		refuse(manager, 0, "ledger", 1_500, "host/aaaa:1");
		refuse(manager, 0, "ledger", 4_400, "host/aaaa:2");
		refuse(manager, 1, "ledger", 12_000, "host/aaaa:3");
		// Too late after the cut; a black hole of another instance's link.
		refuse(manager, 0, "ledger", 4_600, "host/aaaa:4");
		refuse(manager, 1, "ledger", 5_500, "host/aaaa:5");

		checkRefusals(faults);

		assertThat(this.violations.all()).extracting(Violation::text)
			.hasSize(2)
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:4"))
			.anySatisfy((text) -> assertThat(text).contains("host/aaaa:5"));
	}

	@Test
	void anOwnerOfTheCallersManagerIsNotExcusedByAResetAfterForwardOrAClientKill() {
		Object manager = new Object();
		this.workload.keys.remember(manager, "host/aaaa");
		List<FaultInjector.Applied> faults = List.of(applied(FaultKind.RESET_AFTER_FORWARD, 0, 5_000, 5_000),
				applied(FaultKind.CLIENT_KILL, -1, 5_000, 5_000), applied(FaultKind.LOCKS_RESTART, 0, 4_900, 5_000));
		refuse(manager, 0, "ledger", 5_010, "host/aaaa:1");

		checkRefusals(faults);

		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(LockChecks.REPLAY);
	}

	/** A call, granted at {@code grantedMillis} ({@link #NEVER} if refused). */
	private LockUse use(int instance, String name, long startMillis, long endMillis, long grantedMillis,
			boolean replyLost) {
		LockUse use = new LockUse("instance-" + instance + "/t0/" + startMillis, name, instance, startMillis);
		use.endMillis = endMillis;
		use.grantedMillis = grantedMillis;
		use.replyLost = replyLost;
		this.workload.uses.add(use);
		return use;
	}

	/** A call refused at {@code atMillis}, the key then holding {@code found}. */
	private void refuse(Object manager, int instance, String name, long atMillis, String found) {
		LockUse use = use(instance, name, atMillis - 10, atMillis, NEVER, false);
		this.workload.refusals.add(new RefusedAcquisition(use, manager, atMillis, atMillis + 1, found));
	}

	private static FaultInjector.Applied applied(FaultKind kind, int instance, long startMillis, long endMillis) {
		return new FaultInjector.Applied(new Fault(startMillis, kind, instance, endMillis - startMillis, 0), startMillis,
				endMillis);
	}

	private void checkRefusals(List<FaultInjector.Applied> faults) {
		new LockChecks(this.workload, this.losses, List.of(), Duration.ofMillis(1500)).checkRefusals(faults);
	}

	@Test
	void aHandOffIsInLineOnlyWhileACallerOfTheSameInstanceWaitsForTheLockAnotherHolds() {
		LockUse holder = this.workload.begin("instance-0/t0/1", "ledger", 0);
		// Waiting, but of another instance or for another lock:
		this.workload.begin("instance-1/t0/1", "ledger", 1);
		this.workload.begin("instance-0/t1/1", "report", 0);
		assertThat(this.workload.handOffInLine(0)).isNull();

		holder.granted(10);
		assertThat(this.workload.handOffInLine(0)).isNull();

		LockUse waiter = this.workload.begin("instance-0/t2/1", "ledger", 0);
		assertThat(this.workload.handOffInLine(0)).contains("instance-0/t0/1", "instance-0/t2/1");
		assertThat(this.workload.handOffInLine(1)).isNull();

		waiter.granted(20);
		this.workload.end(holder);
		assertThat(this.workload.handOffInLine(0)).isNull();
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
