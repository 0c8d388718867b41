package dev.baton.harness;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The queue checker on ledgers written by hand: a task gone without a trace is flagged, unless
 * Redis was killed after it was accepted; so are a run after a cancel that returned true, a run
 * before a rescheduled due time, a redrive that led nowhere, a failure that was not retried, a
 * task that left flight before its handler's future completed, and a task handled twice without
 * a recorded cause.
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

		checks().check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	/**
	 * A stopping container waits the shutdown timeout (2 s), hands back the tasks still running and
	 * interrupts their handlers: what a handler that ignores the interrupt does afterwards must not
	 * settle its task, so its success does not count as the task handled.
	 */
	@Test
	void successThatOutlivedItsConsumersStopDoesNotCountAsHandled() {
		for (String id : List.of("t-1", "t-2", "t-3", "t-4")) {
			this.ledger.accepted.put(id, 100L);
		}
		// Instance 0's consumer began to stop at 1,000 ms.
		successOf("t-1", 0, 500, 4_000);
		successOf("t-2", 0, 500, 4_000);
		successOf("t-2", 1, 3_600, 3_700);
		// Ended within the shutdown timeout: its acknowledgement may have gone through.
		successOf("t-3", 0, 500, 2_900);
		// Another instance's run, and one that began after the stop.
		successOf("t-4", 1, 500, 4_000);

		QueueChecks checks = checks();
		checks.consumerStops(List.<long[]>of(new long[] { 0, 1_000, 2_500 }));
		checks.deadLettered(Map.of());
		checks.check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-1");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(QueueChecks.NOT_LOST);
		assertThat(checks.summary()).contains("2 successes that outlived their consumer's stop");
	}

	@Test
	void taskGoneWithARedisKillAfterItWasAcceptedIsExcusedButNotOneAcceptedAfterTheKill() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 900L);

		checks(new long[] { 500, 700 }).check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	@Test
	void runStartedAfterACancelReturnedTrueIsAViolationButNotOneAfterACancelThatReturnedFalse() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		action("t-1", TaskLedger.ActionKind.CANCEL, 200, 0, TaskLedger.Result.TRUE);
		action("t-2", TaskLedger.ActionKind.CANCEL, 200, 0, TaskLedger.Result.FALSE);
		run("t-1", 1, 300, true, false);
		run("t-2", 1, 300, true, false);

		check(Map.of());

		assertThat(this.violations.all()).extracting(Violation::invariant)
			.containsExactly(QueueChecks.CANCEL_FINAL);
	}

	@Test
	void runOfATaskStoredAgainAfterItsCancelIsAViolationNoLongerExcusedAsAKnownDefect() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		action("t-1", TaskLedger.ActionKind.CANCEL, 200, 0, TaskLedger.Result.TRUE);
		action("t-2", TaskLedger.ActionKind.CANCEL, 200, 0, TaskLedger.Result.TRUE);
		// Cancel returned at wall 10,020; t-1's delivery is due at 12,800, t-2's at 10,000.
		this.ledger.ran(new TaskLedger.Run("t-1", 2, 1, 12_800, 3000, 12_800, 3010, true, false, false));
		this.ledger.ran(new TaskLedger.Run("t-2", 2, 1, 10_000, 3000, 12_800, 3010, true, false, false));

		check(Map.of());

		// The late-scheduling defect is fixed: both count, the one stored again included.
		assertThat(this.violations.all()).extracting(Violation::subject, Violation::knownDefect)
			.containsExactlyInAnyOrder(tuple("t-1", null), tuple("t-2", null));
	}

	@Test
	void cancelledTaskNeverRunIsNotLost() {
		this.ledger.accepted.put("t-1", 100L);
		action("t-1", TaskLedger.ActionKind.CANCEL, 200, 0, TaskLedger.Result.TRUE);

		check(Map.of());

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void runBeforeTheNewDueTimeOfASuccessfulRescheduleIsAViolationButNotOneAfterIt() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		// Rescheduled at wall 10,000 by 500 ms: due at 10,500 on the Redis clock.
		action("t-1", TaskLedger.ActionKind.RESCHEDULE, 200, 500, TaskLedger.Result.TRUE);
		action("t-2", TaskLedger.ActionKind.RESCHEDULE, 200, 500, TaskLedger.Result.TRUE);
		this.ledger.ran(new TaskLedger.Run("t-1", 0, 1, 10_000, 300, 10_300, 310, true, false, false));
		this.ledger.ran(new TaskLedger.Run("t-2", 0, 1, 10_500, 700, 10_500, 710, true, false, false));

		check(Map.of());

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-1");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(QueueChecks.RESCHEDULED);
	}

	@Test
	void runAfterARescheduleThatThrewIsNotJudged() {
		this.ledger.accepted.put("t-1", 100L);
		action("t-1", TaskLedger.ActionKind.RESCHEDULE, 200, 500, TaskLedger.Result.TRUE);
		action("t-1", TaskLedger.ActionKind.RESCHEDULE, 250, 0, TaskLedger.Result.UNKNOWN);
		this.ledger.ran(new TaskLedger.Run("t-1", 0, 1, 10_050, 300, 10_300, 310, true, false, false));

		check(Map.of());

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void redrivenDeadLetterNeitherHandledNorDeadLetteredAgainIsAViolation() {
		for (String id : List.of("t-1", "t-2", "t-3")) {
			this.ledger.accepted.put(id, 100L);
			run(id, 3, 200, false, false);
			action(id, TaskLedger.ActionKind.REDRIVE, 1000, 0, TaskLedger.Result.TRUE);
		}
		run("t-1", 1, 1100, true, false);
		run("t-2", 1, 1100, false, false);
		run("t-3", 1, 1100, false, false);

		// t-2 dead-lettered again after the redrive; t-3's only dead letter is the one from before.
		check(Map.of("t-2", 11_200L, "t-3", 10_300L));

		assertThat(this.violations.all()).extracting(Violation::subject).contains("t-3").doesNotContain("t-1", "t-2");
		assertThat(this.violations.all()).extracting(Violation::invariant).contains(QueueChecks.REDRIVEN);
	}

	@Test
	void failedRunNeitherRetriedNorDeadLetteredIsAViolationOfAcknowledgement() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		this.ledger.accepted.put("t-3", 100L);
		// t-1: its future failed, then it succeeded on a retry; t-2: its future failed and it was
		// gone, as if acknowledged (and handled once before, so not lost); t-3: dead-lettered.
		run("t-1", 1, 200, false, false);
		run("t-1", 2, 400, true, false);
		this.ledger.ran("t-2", true);
		run("t-2", 1, 200, false, false);
		run("t-3", 3, 200, false, false);

		check(Map.of("t-3", 10_250L));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(QueueChecks.ACK_AFTER_WORK);
	}

	@Test
	void failedRunIsExcusedByARedisKillAfterItsTaskWasAcceptedOrACancelThatTimedOutButNotByAKillBefore() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 600L);
		this.ledger.accepted.put("t-3", 100L);
		this.ledger.ran("t-1", true);
		this.ledger.ran("t-2", true);
		this.ledger.ran("t-3", true);
		run("t-1", 1, 700, false, true);
		run("t-2", 1, 700, false, true);
		action("t-3", TaskLedger.ActionKind.CANCEL, 150, 0, TaskLedger.Result.UNKNOWN);
		run("t-3", 1, 700, false, false);

		QueueChecks checks = checks(new long[] { 200, 500 });
		checks.deadLettered(Map.of());
		checks.check();

		// t-1's delivery may predate the kill that emptied Redis; t-2 was accepted after it.
		assertThat(this.violations.all()).extracting(Violation::subject).containsOnly("t-2");
	}

	/**
	 * A task run after its cancel returned true, stored again by a schedule that had timed out
	 * before the cancel: excused only if that schedule's requests were held back meanwhile (a slow
	 * link, a paused server), not if they were dropped (a black hole, a cut). Found by a long
	 * standalone run (seed -8074084603818520443, t-139: a schedule through a link with 315 ms of
	 * latency each way timed out, ran after the cancel that followed it).
	 */
	@Test
	void taskStoredAgainAfterItsCancelIsExcusedOnlyByAScheduleHeldBack() {
		for (String id : List.of("t-1", "t-2")) {
			this.ledger.failedSchedules.add(new TaskLedger.FailedSchedule(id, id.equals("t-1") ? 1 : 2, 100, 600));
			this.ledger.accepted.put(id, 700L);
			action(id, TaskLedger.ActionKind.CANCEL, 700, 0, TaskLedger.Result.TRUE);
			// Due after the cancel returned: stored again.
			this.ledger.ran(new TaskLedger.Run(id, 0, 1, 12_000, 1500, 11_300, 1520, true, false, false));
		}
		QueueChecks checks = checks();
		checks.deadLettered(Map.of());
		// instance-1's link was slow during its schedule; instance-2's was not.
		checks.heldRequests(new Outages(List.of(new Outages.Window(1, 200, 900))));
		checks.check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(QueueChecks.CANCEL_FINAL);
	}

	/**
	 * A task whose every schedule timed out was never accepted, yet stored: its delivery claimed
	 * before a kill, and started after it, found the task gone. Found by a long standalone run
	 * (seed -8074084603818520443, t-148), where the excuse looked for a kill after the run's start.
	 */
	@Test
	void taskOfUnknownSchedulingLostWithAKillBeforeItsRunStartedIsExcused() {
		// Not accepted: every schedule of it timed out.
		run("t-1", 1, 100, false, false);
		run("t-1", 2, 700, false, true);

		QueueChecks checks = checks(new long[] { 300, 500 });
		checks.deadLettered(Map.of());
		checks.check();

		assertThat(this.violations.all()).isEmpty();
	}

	@Test
	void taskNotInFlightWhileItsFutureWasPendingIsAViolationUnlessItRanAgain() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		run("t-1", 1, 200, true, true);
		run("t-2", 1, 200, true, true);
		run("t-2", 2, 3500, true, false);
		// t-2's first delivery ran out of visibility in an outage, which its container counted: the second
		// run is no violation.
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(1, 3000, "extend", 1));

		check(Map.of(), new Outages.Window(1, 500, 2_500));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-1");
		assertThat(this.violations.all()).extracting(Violation::invariant).containsExactly(QueueChecks.ACK_AFTER_WORK);
	}

	@Test
	void taskHandledTwiceWithoutACauseIsAViolationButNotOneWhoseDeliveryBatonCountedStale() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		// Both succeeded on instance 0, then again on instance 2 after a visibility timeout.
		success("t-1", 0, 1, 200, 5_000);
		success("t-1", 2, 2, 3_500, 5_000);
		success("t-2", 0, 1, 200, 5_000);
		success("t-2", 2, 2, 3_500, 5_000);
		// Instance 0 counted one acknowledgement stale once the link was back, after both runs.
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 4_000, "ack", 1));

		check(Map.of(), new Outages.Window(0, 1_000, 3_000));

		// One count explains one duplicate: the other has no cause.
		assertThat(this.violations.all()).extracting(Violation::invariant)
			.containsExactly(QueueChecks.NO_UNEXPLAINED_DUPLICATE);
		assertThat(this.violations.all()).extracting(Violation::subject).containsAnyOf("t-1", "t-2");
		assertThat(this.violations.all().get(0).text()).contains("instance-0's attempt 1",
				"its counts: 1 ack at 4000 ms");
	}

	@Test
	void taskHandledTwiceWithAStaleCountOfAnotherInstanceOrFromBeforeItsRunIsAViolation() {
		this.ledger.accepted.put("t-1", 100L);
		success("t-1", 0, 1, 2_000, 5_000);
		success("t-1", 2, 2, 5_500, 5_000);
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(2, 3_000, "extend", 1));
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 1_000, "extend", 1));

		check(Map.of(), new Outages.Window(-1, 1_000, 5_000));

		assertThat(this.violations.all()).extracting(Violation::subject, Violation::invariant)
			.containsExactly(tuple("t-1", QueueChecks.NO_UNEXPLAINED_DUPLICATE));
	}

	@Test
	void taskHandledTwiceAfterAConsumerStopRedisLosingWritesOrASchedulingRetryIsExcused() {
		for (String id : List.of("t-1", "t-2", "t-3", "t-4")) {
			this.ledger.accepted.put(id, 100L);
		}
		// t-1: instance 0's consumer stopped while its first run went on.
		success("t-1", 0, 1, 200, 5_000);
		success("t-1", 1, 2, 3_000, 5_000);
		// t-2: Redis lost writes between its runs.
		success("t-2", 1, 1, 6_000, 5_000);
		success("t-2", 2, 2, 9_000, 5_000);
		// t-3: a scheduling retry stored it again, at wall 10,500, after its first run started at 10,000.
		this.ledger.scheduledAgain.put("t-3", 700L);
		success("t-3", 2, 1, 200, 5_000);
		success("t-3", 1, 1, 800, 10_500);
		// t-4: a scheduling retry too, but the second run is of the task stored before the first.
		this.ledger.scheduledAgain.put("t-4", 700L);
		success("t-4", 2, 1, 200, 9_900);
		success("t-4", 1, 2, 3_500, 9_900);
		// t-5: no try answered, yet a failed one stored it after the task another one stored had run.
		this.ledger.unknown.put("t-5", 100L);
		success("t-5", 2, 1, 200, 5_000);
		success("t-5", 1, 1, 800, 10_500);

		QueueChecks checks = checks(new long[] { 7_000, 7_500 });
		checks.consumerStops(List.<long[]>of(new long[] { 0, 300, 2_000 }, new long[] { 2, 100, 150 }));
		checks.deadLettered(Map.of());
		checks.check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-4");
		assertThat(checks.summary()).contains("1 after a consumer stop, 1 after Redis lost writes, 2 stored again");
	}

	@Test
	void consumerStopOfAnotherInstanceOrBeforeTheRunDoesNotExcuseADuplicate() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		success("t-1", 0, 1, 200, 5_000);
		success("t-1", 1, 2, 3_000, 5_000);
		success("t-2", 2, 1, 200, 5_000);
		success("t-2", 1, 2, 3_000, 5_000);

		QueueChecks checks = checks();
		checks.consumerStops(List.<long[]>of(new long[] { 1, 300, 2_000 }, new long[] { 2, 100, 150 }));
		checks.deadLettered(Map.of());
		checks.check();

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactlyInAnyOrder("t-1", "t-2");
	}

	@Test
	void taskHandledTwiceAfterBatonCountedDroppingAnAcknowledgementIsExcusedButNotForADropBeforeItsRun() {
		this.ledger.accepted.put("t-1", 100L);
		this.ledger.accepted.put("t-2", 100L);
		success("t-1", 0, 1, 200, 5_000);
		success("t-1", 2, 2, 3_500, 5_000);
		success("t-2", 1, 1, 2_000, 5_000);
		success("t-2", 2, 2, 5_500, 5_000);
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 3_300, "ack-dropped", 1));
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(1, 1_000, "ack-dropped", 1));

		check(Map.of(), new Outages.Window(-1, 500, 2_500));

		assertThat(this.violations.all()).extracting(Violation::subject, Violation::invariant)
			.containsExactly(tuple("t-2", QueueChecks.NO_UNEXPLAINED_DUPLICATE));
	}

	@Test
	void staleCountExplainsADuplicateOnlyAfterTheInstanceWasOutOfReachForAThirdOfTheVisibilityTimeout() {
		for (String id : List.of("t-1", "t-2", "t-3")) {
			this.ledger.accepted.put(id, 100L);
			success(id, 0, 1, 200, 5_000);
			success(id, 2, 2, 3_500, 5_000);
		}
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 3_300, "ack", 3));

		// One lost call (a black hole of 500 ms) and a stall of 200 ms 250 ms later: no stretch long enough.
		check(Map.of(), new Outages.Window(0, 300, 800), new Outages.Window(-1, 1_050, 1_250));

		assertThat(this.violations.all()).extracting(Violation::invariant)
			.containsExactly(QueueChecks.NO_UNEXPLAINED_DUPLICATE, QueueChecks.NO_UNEXPLAINED_DUPLICATE,
					QueueChecks.NO_UNEXPLAINED_DUPLICATE);
		assertThat(this.violations.all().get(0).text()).contains("longest out of reach", ": 500 ms");
	}

	@Test
	void outOfReachStretchJoinsTheInstancesLinkFaultsTheServersAndStallsWhereTheyOverlapOrNearlyMeet() {
		// Instance 0: 300-1,200, then 50 ms in reach (joined), then 250 ms in reach (not joined).
		Outages outages = new Outages(List.of(new Outages.Window(0, 300, 800), new Outages.Window(-1, 700, 1_200),
				new Outages.Window(1, 1_100, 5_000), new Outages.Window(0, 1_250, 1_400),
				new Outages.Window(0, 1_650, 1_700)));

		assertThat(outages.longest(0, 0, 10_000, 0)).isEqualTo(1_100);
		assertThat(outages.longest(0, 500, 10_000, 0)).isEqualTo(900);
		assertThat(outages.longest(1, 0, 10_000, 0)).isEqualTo(4_300);
		assertThat(outages.longest(2, 0, 10_000, 0)).isEqualTo(500);
	}

	@Test
	void failoverExplainsAStaleDeliveryOnlyIfItWasClaimedBeforeThePromotion() {
		for (String id : List.of("t-1", "t-2")) {
			this.ledger.accepted.put(id, 100L);
		}
		// t-1 claimed before the replica's promotion at 1,000 (its claim may be lost with the old
		// primary); t-2 due and claimed after it, when Baton holds its calls for the new primary.
		success("t-1", 0, 1, 900, 5_000);
		success("t-1", 2, 2, 3_500, 5_000);
		success("t-2", 0, 1, 1_500, 5_000);
		success("t-2", 2, 2, 3_600, 5_000);
		// t-3 started after the promotion, but was due (and may have been claimed ahead) at 900.
		this.ledger.accepted.put("t-3", 100L);
		this.ledger.ran(new TaskLedger.Run("t-3", 0, 1, 10_700, 1_500, 11_300, 1_520, true, false, false, 5_000, false));
		success("t-3", 2, 2, 3_700, 5_000);
		this.ledger.staleCounts.add(new TaskLedger.StaleCount(0, 3_300, "ack", 3));

		check(Map.of(), new Outages.Window(-1, 1_000, 2_200, true));

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactly("t-2");
	}

	/**
	 * Cluster seed 4354682836080730724, t-165: dead-lettered, scheduled again under its id by a
	 * retry (and handled), then its dead letter redriven by a call that timed out but ran: the
	 * application asked for the second run. A redrive that returned false, or one answered before
	 * the first run, explains nothing.
	 */
	@Test
	void duplicateAfterARedriveOfTheDeadLetterOfATaskScheduledAgainIsExplained() {
		for (String id : List.of("t-1", "t-2", "t-3")) {
			this.ledger.accepted.put(id, 100L);
			success(id, 0, 1, 1_000, 5_000);
			success(id, 2, 1, 2_000, 4_000);
		}
		action("t-1", TaskLedger.ActionKind.REDRIVE, 900, 0, TaskLedger.Result.UNKNOWN);
		action("t-2", TaskLedger.ActionKind.REDRIVE, 900, 0, TaskLedger.Result.FALSE);
		action("t-3", TaskLedger.ActionKind.REDRIVE, 500, 0, TaskLedger.Result.TRUE);

		check(Map.of());

		assertThat(this.violations.all()).extracting(Violation::subject).containsExactlyInAnyOrder("t-2", "t-3");
	}

	/** A successful sync run of 20 ms on the instance, started on the wall clock at 10,000 + (start - 200) ms. */
	private void success(String id, int instance, int attempt, long start, long scheduledAtWall) {
		long wall = 10_000 + start - 200;
		this.ledger.ran(new TaskLedger.Run(id, instance, attempt, wall, start, wall, start + 20, true, false, false,
				scheduledAtWall, false));
	}

	/** A successful attempt 1 on the instance, from {@code start} to {@code end}. */
	private void successOf(String id, int instance, long start, long end) {
		long wall = 10_000 + start - 200;
		this.ledger.ran(new TaskLedger.Run(id, instance, 1, wall, start, wall, end, true, false, false, wall, false));
	}

	/** A producer's call, started at wall 10,000 + (start - 200) ms and answered 20 ms later. */
	private void action(String id, TaskLedger.ActionKind kind, long start, long delay, TaskLedger.Result result) {
		this.ledger.actions.add(new TaskLedger.Action(id, kind, start, start + 20, 10_000 + start - 200, delay,
				result));
	}

	/** An async run of 20 ms, due when it started, on the wall clock 10,000 + (start - 200) ms. */
	private void run(String id, int attempt, long start, boolean succeeded, boolean absentWhilePending) {
		long wall = 10_000 + start - 200;
		this.ledger.ran(new TaskLedger.Run(id, 1, attempt, wall, start, wall, start + 20, succeeded, true,
				absentWhilePending));
	}

	/**
	 * @param outages when instances could not reach Redis
	 */
	private void check(Map<String, Long> deadLettered, Outages.Window... outages) {
		QueueChecks checks = checks();
		checks.deadLettered(deadLettered);
		checks.outages(new Outages(List.of(outages)));
		checks.check();
	}

	/** The queue checks on this test's ledger, with the windows in which Redis was killed, {start, end}. */
	private QueueChecks checks(long[]... kills) {
		return new QueueChecks(this.ledger, List.of(kills), Visibility.SHORT, this.violations, this.timeline);
	}

}
