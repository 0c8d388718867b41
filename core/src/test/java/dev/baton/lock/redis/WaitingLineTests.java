package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.redis.WaitingLine.Claim;
import dev.baton.lock.redis.WaitingLine.HandOff;
import dev.baton.lock.redis.WaitingLine.Offer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * This JVM's line of waiters for one lock, without Redis: fake waiters whose attempts succeed
 * when told, and fake leases.
 */
class WaitingLineTests {

	private final WaitingLine<FakeLease> line = new WaitingLine<>();

	private final FakeLease holder = new FakeLease("holder");

	private final List<Waiting> started = new ArrayList<>();

	@AfterEach
	void stopWaiters() {
		for (Waiting waiting : this.started) {
			waiting.thread.interrupt();
		}
	}

	@Test
	void onlyTheFirstInLineAsksAndALaterOneIsHandedTheLockWithoutAsking() throws Exception {
		FakeWaiter first = new FakeWaiter("first");
		FakeWaiter second = new FakeWaiter("second");
		Waiting firstWaiting = waitInLine(first, true);
		await().until(() -> first.attempts.get() == 1 && firstWaiting.isParked());
		Waiting secondWaiting = waitInLine(second, true);
		await().until(secondWaiting::isParked);

		first.succeedNext();
		this.line.signal(true);

		assertThat(firstWaiting.lease()).isEqualTo(new FakeLease("first"));
		// The holder is of this JVM and valid: nobody asks while it holds the lock.
		Thread.sleep(100);
		assertThat(second.attempts).hasValue(0);

		Claim<FakeLease> claim = this.line.claim();
		Offer<FakeLease> offer = claim.offer();
		assertThat(offer).isNotNull();
		assertThat(this.line.handOff(offer, new FakeLease("first")).holderHeld()).isTrue();

		assertThat(secondWaiting.lease()).isEqualTo(new FakeLease("second from first"));
		assertThat(second.attempts).hasValue(0);
	}

	@Test
	void releasesYieldToEveryInstanceAfterMaxTurnsInARowWhileThisJvmWaits() throws Exception {
		for (int i = 0; i < 2 * HandOffFairness.MAX_TURNS_IN_A_ROW; i++) {
			assertThat(this.line.claim().yield()).as("nobody waits: no turn counted").isFalse();
		}
		FakeWaiter waiter = new FakeWaiter("waiter");
		Waiting waiting = waitInLine(waiter, true);
		await().until(() -> waiter.attempts.get() == 1 && waiting.isParked());

		Claim<FakeLease> handOff = this.line.claim();
		assertThat(handOff.offer()).isNotNull();
		for (int turn = 2; turn <= HandOffFairness.MAX_TURNS_IN_A_ROW; turn++) {
			Claim<FakeLease> claim = this.line.claim();
			assertThat(claim.yield()).isFalse();
			assertThat(claim.offer()).as("the only waiter is claimed already").isNull();
		}
		assertThat(this.line.claim().yield()).isTrue();
		assertThat(this.line.claim().yield()).as("counting starts again").isFalse();

		this.line.handOff(handOff.offer(), this.holder);
		assertThat(waiting.lease()).isEqualTo(new FakeLease("waiter from holder"));
	}

	@Test
	void handOffFromAHolderThatLostTheLockSendsTheWaiterToAskAgain() throws Exception {
		FakeWaiter waiter = new FakeWaiter("waiter");
		waiter.handOff = HandOff.lost();
		Waiting waiting = waitInLine(waiter, true);
		await().until(() -> waiter.attempts.get() == 1 && waiting.isParked());
		waiter.succeedNext();

		Claim<FakeLease> claim = this.line.claim();
		assertThat(this.line.handOff(claim.offer(), this.holder).holderHeld()).isFalse();

		assertThat(waiting.lease()).isEqualTo(new FakeLease("waiter"));
		assertThat(waiter.attempts).hasValue(2);
	}

	@Test
	void interruptibleWaiterLeavesTheLineAndTheNextAsks() throws Exception {
		FakeWaiter first = new FakeWaiter("first");
		FakeWaiter second = new FakeWaiter("second");
		Waiting firstWaiting = waitInLine(first, true);
		await().until(() -> first.attempts.get() == 1 && firstWaiting.isParked());
		Waiting secondWaiting = waitInLine(second, true);
		await().until(secondWaiting::isParked);
		second.succeedNext();

		firstWaiting.thread.interrupt();

		assertThatExceptionOfType(ExecutionException.class).isThrownBy(firstWaiting::lease)
			.withCauseInstanceOf(InterruptedException.class);
		assertThat(secondWaiting.lease()).isEqualTo(new FakeLease("second"));
	}

	@Test
	void uninterruptibleWaiterKeepsWaitingAndGetsItsInterruptBackAfterwards() throws Exception {
		FakeWaiter waiter = new FakeWaiter("waiter");
		Waiting waiting = waitInLine(waiter, false);
		await().until(() -> waiter.attempts.get() == 1 && waiting.isParked());

		waiting.thread.interrupt();
		await().until(waiting::isParked);
		assertThat(waiting.result).isNotDone();
		waiter.succeedNext();
		this.line.signal(true);

		assertThat(waiting.lease()).isEqualTo(new FakeLease("waiter"));
		assertThat(waiting.interruptedAfterwards).isTrue();
	}

	@Test
	void waiterInterruptedOnceItsHandOffBeganTakesTheLockAndKeepsTheInterrupt() throws Exception {
		FakeWaiter waiter = new FakeWaiter("waiter");
		Waiting waiting = waitInLine(waiter, true);
		await().until(() -> waiter.attempts.get() == 1 && waiting.isParked());
		Claim<FakeLease> claim = this.line.claim();

		waiting.thread.interrupt();
		Thread.sleep(100);
		assertThat(waiting.result).as("it waits for the hand-off under way").isNotDone();
		this.line.handOff(claim.offer(), this.holder);

		assertThat(waiting.lease()).isEqualTo(new FakeLease("waiter from holder"));
		assertThat(waiting.interruptedAfterwards).isTrue();
	}

	@Test
	void waitThatRunsOutGivesNothing() throws Exception {
		FakeWaiter waiter = new FakeWaiter("waiter");

		Waiting waiting = waitInLine(waiter, TimeUnit.MILLISECONDS.toNanos(50), true);

		assertThat(waiting.lease()).isNull();
		assertThat(waiter.attempts).hasValue(1);
	}

	private Waiting waitInLine(FakeWaiter waiter, boolean interruptible) {
		return waitInLine(waiter, TimeUnit.SECONDS.toNanos(30), interruptible);
	}

	private Waiting waitInLine(FakeWaiter waiter, long waitNanos, boolean interruptible) {
		CompletableFuture<@Nullable FakeLease> result = new CompletableFuture<>();
		AtomicBoolean interruptedAfterwards = new AtomicBoolean();
		Thread thread = new Thread(() -> {
			LockWait wait = new LockWait(waitNanos, interruptible);
			try {
				FakeLease lease = this.line.await(waiter, wait);
				wait.restoreInterrupt();
				interruptedAfterwards.set(Thread.currentThread().isInterrupted());
				result.complete(lease);
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, "waiter " + waiter.name);
		thread.setDaemon(true);
		thread.start();
		Waiting waiting = new Waiting(thread, result, interruptedAfterwards);
		this.started.add(waiting);
		return waiting;
	}

	private record Waiting(Thread thread, CompletableFuture<@Nullable FakeLease> result,
			AtomicBoolean interruptedAfterwards) {

		boolean isParked() {
			Thread.State state = this.thread.getState();
			return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
		}

		@Nullable FakeLease lease() throws Exception {
			return this.result.get(5, TimeUnit.SECONDS);
		}

	}

	/** A lease of this JVM that stays valid. */
	private record FakeLease(String name) implements WaitingLine.Lease {

		@Override
		public boolean isValid() {
			return true;
		}

		@Override
		public long validForMillis() {
			return Duration.ofMinutes(1).toMillis();
		}

	}

	/** A waiter whose attempts fail until told to succeed, and that takes any hand-off. */
	private static final class FakeWaiter implements WaitingLine.Waiter<FakeLease> {

		private final String name;

		private final AtomicInteger attempts = new AtomicInteger();

		private volatile boolean succeeds;

		private volatile @Nullable HandOff<FakeLease> handOff;

		FakeWaiter(String name) {
			this.name = name;
		}

		void succeedNext() {
			this.succeeds = true;
		}

		@Override
		public @Nullable FakeLease attempt() {
			this.attempts.incrementAndGet();
			return this.succeeds ? new FakeLease(this.name) : null;
		}

		@Override
		public long retryInMillis() {
			// The holder's lease runs out long after any test.
			return Duration.ofMinutes(1).toMillis();
		}

		@Override
		public HandOff<FakeLease> takeOver(FakeLease holder) {
			HandOff<FakeLease> given = this.handOff;
			return (given != null) ? given : HandOff.to(new FakeLease(this.name + " from " + holder.name()));
		}

	}

}
