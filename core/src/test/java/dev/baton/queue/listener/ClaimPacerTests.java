package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;

import dev.baton.queue.spi.WakeSignal;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When an idle container claims: a claim is left to another instance only when a claim made after
 * the wake-up took every task due, never otherwise.
 */
class ClaimPacerTests {

	private static final String CHANNEL = "baton:q:{orders}:wake";

	private final ClaimPacer pacer = new ClaimPacer(() -> 1);

	@Test
	void aLoneInstanceClaimsAtOnceWhenATaskFallsDue() {
		this.pacer.signal(due(Duration.ZERO));

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(500));
		assertThat(this.pacer.claimsLeftToOthers()).isZero();
	}

	@Test
	void aTaskThatAnotherInstanceTookAfterTheWakeUpIsLeftToIt() {
		this.pacer.signal(due(Duration.ZERO));
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ofSeconds(10)));

		assertThat(waited(null, Duration.ofMillis(600))).isGreaterThanOrEqualTo(Duration.ofMillis(550));
		assertThat(this.pacer.claimsLeftToOthers()).isOne();
	}

	@Test
	void aClaimBeforeTheWakeUpDoesNotCoverItsTask() {
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ofSeconds(10)));
		this.pacer.signal(due(Duration.ZERO));

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(500));
		assertThat(this.pacer.claimsLeftToOthers()).isZero();
	}

	@Test
	void itsOwnClaimsNeverLeaveATaskToItself() {
		this.pacer.signal(due(Duration.ZERO));
		this.pacer.signal(new WakeSignal.Taken(CHANNEL, true, "self", Instant.now(), Duration.ofSeconds(10)));

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(500));
		assertThat(this.pacer.claimsLeftToOthers()).isZero();
	}

	@Test
	void aTaskSignalledDueLaterThatFellDueWhileTheContainerWasBusyIsClaimedThoughAnEarlierClaimTookTheTaskDueNow()
			throws InterruptedException {
		// Another instance took the task due now that woke this container; then a task was scheduled
		// to fall due a few milliseconds later, and fell due before this container came to wait (its
		// claim, its random wait). The claim it leaves the first task to came before the second.
		this.pacer.signal(due(Duration.ZERO));
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ofSeconds(30)));
		this.pacer.signal(due(Duration.ofMillis(5)));
		Thread.sleep(20);

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(1000));
	}

	@Test
	void aClaimThatLeftTasksDueWakesTheOthers() {
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ZERO));

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(500));
	}

	@Test
	void aTaskDueLaterWakesTheContainerWhenItIsDue() {
		this.pacer.signal(due(Duration.ofMillis(300)));

		Duration waited = waited(null, Duration.ofSeconds(5));
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(250)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aTimerReachingADueTimeThatAnotherClaimPassedIsLeftToIt() {
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ofSeconds(10)));

		assertThat(waited(Duration.ofMillis(100), Duration.ofMillis(600))).isGreaterThanOrEqualTo(Duration.ofMillis(550));
		assertThat(this.pacer.claimsLeftToOthers()).isOne();
	}

	@Test
	void aTaskScheduledAfterTheLastClaimIsClaimedWhenDue() {
		this.pacer.signal(takenByPeer(Instant.now(), Duration.ofSeconds(10)));
		this.pacer.signal(due(Duration.ofMillis(100)));

		assertThat(waited(null, Duration.ofSeconds(5))).isLessThan(Duration.ofMillis(1000));
		assertThat(this.pacer.claimsLeftToOthers()).isZero();
	}

	@Test
	void aTimerForTheTaskTheLastClaimSaidIsNextClaimsItWhateverTheClockEstimate() {
		// The last claims (this one's and another instance's) ran now and left a task due in 100 ms;
		// this JVM's estimate of the Redis clock is 20 ms behind, so the timer, read back on the Redis
		// clock, looks 20 ms early.
		Instant claimedAt = Instant.now();
		this.pacer.claimed(Duration.ofMillis(-20), Duration.ofMillis(1), claimedAt);
		this.pacer.signal(new WakeSignal.Taken(CHANNEL, false, "peer", claimedAt, Duration.ofMillis(100)));

		assertThat(waited(Duration.ofMillis(100), Duration.ofSeconds(2))).isLessThan(Duration.ofMillis(1000));
		assertThat(this.pacer.claimsLeftToOthers()).isZero();
	}

	@Test
	void onAQueueOfSeveralPartitionsATimerAlwaysClaims() {
		ClaimPacer partitioned = new ClaimPacer(() -> 4);
		partitioned.signal(takenByPeer(Instant.now(), Duration.ofSeconds(10)));

		long start = System.nanoTime();
		partitioned.awaitClaim(Duration.ofMillis(100), Duration.ofSeconds(5), () -> true);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
	}

	private Duration waited(Duration nextDueIn, Duration maxIdle) {
		long start = System.nanoTime();
		this.pacer.awaitClaim(nextDueIn, maxIdle, () -> true);
		return Duration.ofNanos(System.nanoTime() - start);
	}

	private static WakeSignal due(Duration in) {
		return new WakeSignal.Due(CHANNEL, Instant.now().plus(in));
	}

	private static WakeSignal takenByPeer(Instant at, Duration nextDueIn) {
		return new WakeSignal.Taken(CHANNEL, false, "peer", at, nextDueIn);
	}

}
