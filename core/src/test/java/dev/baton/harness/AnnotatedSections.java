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

	private final LockWorkload workload;

	private final Executor async;

	AnnotatedSections(LockWorkload workload, Executor async) {
		this.workload = workload;
		this.async = async;
	}

	@DistributedLock(name = NAME, key = "#p0")
	void once(String key, String holder, long holdMillis) {
		critical(key, holder, holdMillis);
	}

	@DistributedLock(name = NAME, key = "#p0", waitTime = "500ms")
	void waiting(String key, String holder, long holdMillis) {
		critical(key, holder, holdMillis);
	}

	/** A fixed lease, not renewed: a long body outlives it, and its loss is reported. */
	@DistributedLock(name = NAME, key = "#p0", waitTime = "1s", leaseTime = "1500ms")
	void fixedLease(String key, String holder, long holdMillis) {
		critical(key, holder, holdMillis);
	}

	/** Keeps the lock until the future completes, on another thread; not acquired, it returns a completed future. */
	@DistributedLock(name = NAME, key = "#p0", waitTime = "100ms", onFailure = OnLockFailure.SKIP)
	CompletableFuture<Boolean> later(String key, String holder, long holdMillis) {
		return CompletableFuture.supplyAsync(() -> {
			critical(key, holder, holdMillis);
			return true;
		}, this.async);
	}

	private void critical(String key, String holder, long holdMillis) {
		Hold hold = new Hold(holder, NAME + ":" + key, Hold.NO_TOKEN, this.workload.timeline.now());
		this.workload.enter(hold);
		Pause.millis(holdMillis);
		this.workload.exit(hold);
	}

}
