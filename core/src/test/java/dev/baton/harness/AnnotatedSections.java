package dev.baton.harness;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.OnLockFailure;

/**
 * A bean with {@code @DistributedLock} methods, called through a proxy with Baton's advisor:
 * each method's body is a critical section in the workload's unfenced counter. The lock is
 * {@code annotated:<key>}. The holder cannot see its lease, so it learns of a loss only through
 * the {@code LockLostEvent}.
 */
class AnnotatedSections {

	static final String NAME = "annotated";

	/** The lease time of {@link #fixedLease}. */
	static final long FIXED_LEASE_MILLIS = 1500;

	private final LockWorkload workload;

	private final Executor async;

	AnnotatedSections(LockWorkload workload, Executor async) {
		this.workload = workload;
		this.async = async;
	}

	@DistributedLock(name = NAME, key = "#p0")
	void once(String key, String holder, long holdMillis) {
		critical(key, holder, holdMillis, Long.MAX_VALUE);
	}

	@DistributedLock(name = NAME, key = "#p0", waitTime = "500ms")
	void waiting(String key, String holder, long holdMillis) {
		critical(key, holder, holdMillis, Long.MAX_VALUE);
	}

	/**
	 * A fixed lease, not renewed: a long body outlives it, as documented ("the longest the lock is
	 * held"). The body cannot ask its lease, so it counts as told of its loss when its lease time
	 * has passed since the call began (the lease began later).
	 * @param calledAt when the caller called, ms of the run's timeline
	 */
	@DistributedLock(name = NAME, key = "#p0", waitTime = "1s", leaseTime = "1500ms")
	void fixedLease(String key, String holder, long holdMillis, long calledAt) {
		critical(key, holder, holdMillis, calledAt + FIXED_LEASE_MILLIS);
	}

	/** Keeps the lock until the future completes, on another thread; not acquired, it returns a completed future. */
	@DistributedLock(name = NAME, key = "#p0", waitTime = "100ms", onFailure = OnLockFailure.SKIP)
	CompletableFuture<Boolean> later(String key, String holder, long holdMillis) {
		return CompletableFuture.supplyAsync(() -> {
			critical(key, holder, holdMillis, Long.MAX_VALUE);
			return true;
		}, this.async);
	}

	/**
	 * @param leaseEndsBy when the lease has run out for sure, ms of the run's timeline; from then on
	 * the holder knows it may have lost the lock
	 */
	private void critical(String key, String holder, long holdMillis, long leaseEndsBy) {
		Hold hold = new Hold(holder, NAME + ":" + key, Hold.NO_TOKEN, this.workload.timeline.now());
		this.workload.enter(hold);
		Pause.millis(holdMillis);
		hold.lostAtEnd = this.workload.timeline.now() >= leaseEndsBy;
		this.workload.exit(hold);
	}

}
