package dev.baton.lock.redis;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * One thread's wait for a lock: how long it may still last, and what an interrupt does to it. An
 * interruptible wait ends with the interrupt; an uninterruptible one goes on, remembers it and
 * restores it once the wait is over ({@link #restoreInterrupt()}).
 */
final class LockWait {

	private final long deadline;

	private final boolean forever;

	private final boolean interruptible;

	private boolean interrupted;

	/**
	 * @param waitNanos how long to wait; {@link Long#MAX_VALUE} waits for ever
	 * @param interruptible whether an interrupt ends the wait
	 */
	LockWait(long waitNanos, boolean interruptible) {
		this.forever = waitNanos == Long.MAX_VALUE;
		this.deadline = this.forever ? 0 : System.nanoTime() + waitNanos;
		this.interruptible = interruptible;
	}

	long remainingNanos() {
		return this.forever ? Long.MAX_VALUE : this.deadline - System.nanoTime();
	}

	void await(Condition condition, long nanos) throws InterruptedException {
		try {
			condition.awaitNanos(nanos);
		}
		catch (InterruptedException ex) {
			interrupted(ex);
		}
	}

	void await(CountDownLatch latch, long nanos) throws InterruptedException {
		try {
			latch.await(nanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			interrupted(ex);
		}
	}

	// An uninterruptible wait remembers the interrupt and restores it when the wait is over.
	private void interrupted(InterruptedException ex) throws InterruptedException {
		if (this.interruptible) {
			throw ex;
		}
		this.interrupted = true;
	}

	void restoreInterrupt() {
		if (this.interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
