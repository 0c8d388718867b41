package dev.baton.queue.listener;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Back-pressure of a container: one permit per task it may hold, its concurrency plus its
 * prefetch. A claim takes one permit per task it asks for and gives back those it did not get;
 * a task gives its permit back once it is settled or handed back.
 */
final class Permits {

	/** How long a backlogged loop waits for more free permits before it claims. */
	private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	private final Semaphore permits;

	/** Makes the loop claim at once. */
	private final Runnable wake;

	/** Whether the loop waits for a task to finish before it claims more. */
	private volatile boolean awaitingRoom;

	/** When a task's permit was last freed, as {@link System#nanoTime()}. */
	private volatile long lastFreed = System.nanoTime();

	private final int capacity;

	Permits(int count, Runnable wake) {
		this.permits = new Semaphore(count);
		this.capacity = count;
		this.wake = wake;
	}

	/** How many permits there are: the container's concurrency plus its prefetch. */
	int capacity() {
		return this.capacity;
	}

	/** Waits for a permit while {@code active}; returns whether it took one. */
	boolean acquire(BooleanSupplier active) throws InterruptedException {
		while (active.getAsBoolean()) {
			if (this.permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
				if (active.getAsBoolean()) {
					return true;
				}
				this.permits.release();
			}
		}
		return false;
	}

	/** Takes up to {@code max} permits that are free now; returns how many it took. */
	int drain(int max) {
		int taken = 0;
		while (taken < max && this.permits.tryAcquire()) {
			taken++;
		}
		return taken;
	}

	// With a backlog, handlers finish within moments of each other: waiting a little for their
	// permits claims them in one round trip instead of one claim per finished task.
	int gather(int wanted) throws InterruptedException {
		long deadline = System.nanoTime() + GATHER_NANOS;
		int taken = 0;
		while (taken < wanted && this.permits.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
			taken++;
		}
		return taken;
	}

	/** Gives back permits the loop took for tasks it did not get. */
	void release(int count) {
		this.permits.release(count);
	}

	/** Gives back the permit of a task that was settled or handed back. */
	void freed() {
		this.lastFreed = System.nanoTime();
		this.permits.release();
		if (this.awaitingRoom) {
			this.wake.run();
		}
	}

	/** Whether a freed permit wakes the loop; set before the loop counts its room. */
	void awaitingRoom(boolean awaiting) {
		this.awaitingRoom = awaiting;
	}

	/** Whether every permit is held and none was freed for longer than {@code nanos}. */
	boolean exhaustedLongerThan(long nanos, long now) {
		return this.permits.availablePermits() == 0 && now - this.lastFreed > nanos;
	}

}
