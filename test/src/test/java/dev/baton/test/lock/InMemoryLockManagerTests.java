package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link InMemoryLockManager} does beyond the lock contract: its clock, instances and limits. */
class InMemoryLockManagerTests {

	private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T08:00:00Z"));

	private final InMemoryLockManager locks = new InMemoryLockManager(this.now::get);

	private void advance(Duration duration) {
		this.now.updateAndGet((instant) -> instant.plus(duration));
	}

	@Test
	void leasesDoNotRunOutUnlessTheClockMoves() throws Exception {
		LockLease lease = this.locks.tryAcquire("report", Duration.ZERO, Duration.ofMillis(10)).orElseThrow();
		Thread.sleep(50);
		assertThat(lease.isValid()).isTrue();
		advance(Duration.ofMillis(10));
		assertThat(lease.isValid()).isFalse();
	}

	@Test
	void leasesOnTheSystemClockRunOutInRealTime() throws Exception {
		InMemoryLockManager realTime = new InMemoryLockManager();
		LockLease lease = realTime.tryAcquire("report", Duration.ZERO, Duration.ofMillis(20)).orElseThrow();
		Thread.sleep(60);
		assertThat(lease.isValid()).isFalse();
		assertThat(realTime.tryAcquire("report", Duration.ZERO)).isPresent();
	}

	@Test
	void aWaiterGetsALockWhoseLeaseRunsOutWhileItWaits() {
		this.locks.anotherInstance().tryAcquire("report", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture
			.supplyAsync(() -> this.locks.tryAcquire("report", Duration.ofSeconds(10)));
		advance(Duration.ofMinutes(5));
		assertThat(waiting).succeedsWithin(Duration.ofSeconds(5)).satisfies((lease) -> assertThat(lease).isPresent());
	}

	@Test
	void holderOfNamesTheInstanceThatHoldsTheLock() {
		InMemoryLockManager other = this.locks.anotherInstance();
		assertThat(this.locks.instanceName()).isNotEqualTo(other.instanceName());
		assertThat(this.locks.holderOf("report")).isEmpty();
		other.tryAcquire("report", Duration.ZERO).orElseThrow();

		assertThat(this.locks.holderOf("report")).contains(other.instanceName());
		assertThatThrownBy(() -> this.locks.withLock("report", Duration.ZERO, () -> "ran"))
			.isInstanceOfSatisfying(LockNotAcquiredException.class,
					(ex) -> assertThat(ex.getHolder()).contains(other.instanceName()));
	}

	@Test
	void closingStopsRenewalsButLeavesLeasesWithALeaseTimeAlone() {
		InMemoryLockManager crashing = this.locks.anotherInstance(Duration.ofSeconds(30));
		LockLease renewed = crashing.tryAcquire("renewed", Duration.ZERO).orElseThrow();
		LockLease leased = crashing.tryAcquire("leased", Duration.ZERO, Duration.ofMinutes(2)).orElseThrow();
		advance(Duration.ofHours(1).minus(Duration.ofMinutes(1)));
		assertThat(leased.isValid()).isFalse();
		LockLease again = crashing.tryAcquire("leased", Duration.ZERO, Duration.ofMinutes(2)).orElseThrow();

		crashing.close();
		advance(Duration.ofSeconds(29));
		assertThat(renewed.isValid()).isTrue();
		assertThat(again.isValid()).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> crashing.tryAcquire("other", Duration.ZERO));
		advance(Duration.ofSeconds(1));
		assertThat(renewed.isValid()).isFalse();
		assertThat(this.locks.tryAcquire("renewed", Duration.ZERO)).isPresent();
		assertThat(again.isValid()).isTrue();
	}

	@Test
	void aRenewedLeaseHandedOverRunsOutOnTheClockUnlessExtendedOrRestored() {
		InMemoryLockManager worker = this.locks.anotherInstance(Duration.ofSeconds(10));
		LeaseToken unextended = this.locks.tryAcquire("plain", Duration.ZERO).orElseThrow().handOver();
		LockLease extended = this.locks.tryAcquire("extended", Duration.ZERO).orElseThrow();
		extended.extend(Duration.ofMinutes(5));
		LeaseToken token = extended.handOver();
		assertThat(token.leaseTime()).as("renewed wherever it is restored").isNull();
		assertThat(this.locks.holderOf("extended")).contains(this.locks.instanceName());

		advance(InMemoryLockManager.DEFAULT_LEASE_TIME);

		assertThat(worker.restore(unextended).isValid()).as("ran out a lease time after the hand-over").isFalse();
		LockLease restored = worker.restore(token);
		assertThat(restored.isValid()).isTrue();
		assertThat(worker.holderOf("extended")).contains(worker.instanceName());
		advance(Duration.ofHours(1));
		assertThat(restored.isValid()).as("renewed by the instance that restored it").isTrue();
		worker.close();
		advance(Duration.ofSeconds(10));
		assertThat(restored.isValid()).isFalse();
	}

	@Test
	void aLeaseLostBeforeItsFencingTokenWasIssuedIsNotHandedOver() {
		LockLease lease = this.locks.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
		advance(Duration.ofSeconds(1));

		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::handOver);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::handOver)
			.withMessageContaining("this lease was released, lost or handed over");
	}

	@Test
	void anInterruptedTryAcquireKeepsWaitingAndKeepsTheInterrupt() throws Exception {
		LockLease held = this.locks.anotherInstance().tryAcquire("report", Duration.ZERO).orElseThrow();
		CompletableFuture<Boolean> interruptedAfterwards = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			Optional<LockLease> lease = this.locks.tryAcquire("report", Duration.ofSeconds(10));
			interruptedAfterwards.complete(lease.isPresent() && Thread.currentThread().isInterrupted());
		});
		waiter.start();
		Thread.sleep(50);
		waiter.interrupt();
		Thread.sleep(50);
		held.release();
		assertThat(interruptedAfterwards.get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void anInterruptedTryLockThrows() throws Exception {
		this.locks.anotherInstance().tryAcquire("report", Duration.ZERO).orElseThrow();
		RedisLock lock = this.locks.getLock("report");
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				lock.tryLock(Duration.ofSeconds(10), null);
				failure.complete(null);
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
		});
		waiter.start();
		Thread.sleep(50);
		waiter.interrupt();
		assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
	}

	@Test
	void heldLocksListsThisInstancesLeasesUntilTheirHoldersReleaseThem() {
		LockLease renewed = this.locks.tryAcquire("report", Duration.ZERO).orElseThrow();
		LockLease timed = this.locks.tryAcquire(LockRequest.of("invoice:7")
			.waitTime(Duration.ZERO)
			.leaseTime(Duration.ofMinutes(5))
			.build()).orElseThrow();
		long token = timed.fencingToken();
		this.locks.anotherInstance().tryAcquire("other", Duration.ZERO).orElseThrow();
		advance(Duration.ofMinutes(1));

		assertThat(this.locks.heldLocks()).containsExactlyInAnyOrder(
				new HeldLock("report", "report", 0, Duration.ofMinutes(1), InMemoryLockManager.DEFAULT_LEASE_TIME, true),
				new HeldLock("invoice:7", "invoice", token, Duration.ofMinutes(1), Duration.ofMinutes(4), false));
		assertThat(this.locks.heldCount()).isEqualTo(2);
		renewed.release(Duration.ofMinutes(10));
		timed.release();
		assertThat(this.locks.heldLocks()).isEmpty();
		assertThat(this.locks.ping()).isZero();
		assertThat(this.locks.lastRenewalFailure()).isNull();
	}

	@Test
	void allReleasedCompletesOnceTheLastLeaseIsReleasedOrRunsOut() throws Exception {
		LockLease renewed = this.locks.tryAcquire("report", Duration.ZERO).orElseThrow();
		this.locks.tryAcquire("invoice", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		CompletableFuture<Void> released = this.locks.allReleased();
		assertThat(released).isNotDone();

		renewed.release();
		Thread.sleep(50);
		assertThat(released).as("a lease with a lease time is still held").isNotDone();
		advance(Duration.ofMinutes(5));
		assertThat(released).succeedsWithin(Duration.ofSeconds(5));
		assertThat(this.locks.allReleased()).isDone();
	}

	@Test
	void aTokenExtendsAndReleasesItsLockOnlyWhileItHoldsIt() {
		LockLease lease = this.locks.tryAcquire("export", Duration.ZERO).orElseThrow();
		LeaseToken token = lease.handOver();
		assertThat(this.locks.leaseOf(token)).as("the watchdog lease").isEqualTo(InMemoryLockManager.DEFAULT_LEASE_TIME);

		assertThat(this.locks.extend(token, Duration.ofMinutes(5))).isTrue();
		advance(Duration.ofMinutes(4));
		assertThat(this.locks.anotherInstance().tryAcquire("export", Duration.ZERO)).isEmpty();
		assertThat(this.locks.release(token)).isTrue();
		assertThat(this.locks.release(token)).as("released before").isFalse();

		LockLease newOwner = this.locks.anotherInstance().tryAcquire("export", Duration.ZERO).orElseThrow();
		assertThat(this.locks.extend(token, Duration.ofMinutes(5))).isFalse();
		assertThat(this.locks.release(token)).isFalse();
		assertThat(newOwner.isValid()).as("never touched").isTrue();
	}

	@Test
	void aLeaseTakesBackTheLockItHandedOverWhileTheTokenHoldsIt() {
		LockLease renewed = this.locks.tryAcquire("renewed", Duration.ZERO).orElseThrow();
		LeaseToken renewedToken = renewed.handOver();
		LockLease leased = this.locks.tryAcquire("leased", Duration.ZERO, Duration.ofMinutes(2)).orElseThrow();
		LeaseToken leasedToken = leased.handOver();
		assertThat(this.locks.leaseOf(leasedToken)).isEqualTo(Duration.ofMinutes(2));

		assertThat(this.locks.takeBack(renewed, renewedToken)).isTrue();
		assertThat(this.locks.takeBack(leased, leasedToken)).isTrue();

		advance(Duration.ofMinutes(3));
		assertThat(renewed.isValid()).as("renewed again").isTrue();
		assertThat(renewed.handOver().fencingToken()).isEqualTo(renewedToken.fencingToken());
		assertThat(leased.isValid()).as("its own lease time ran out").isFalse();
		assertThat(this.locks.takeBack(leased, leasedToken)).as("the token holds nothing").isFalse();
		assertThat(this.locks.extend(renewedToken, Duration.ofMinutes(1))).as("a token given back is used up").isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.takeBack(leased, renewedToken));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InMemoryLockManager(this.now::get).takeBack(leased, leasedToken));
	}

	@Test
	void namesMustBeUsableAsRedisKeys() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.getLock("line\nbreak"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.tryAcquire("tab\there", Duration.ZERO));
	}

	@Test
	void aLeaseTimeMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new InMemoryLockManager(this.now::get, Duration.ZERO));
	}

}
