package dev.baton.lock.redis;

import java.util.concurrent.TimeUnit;

/**
 * Keeps one lock from staying in this JVM while waiters on other instances starve: after
 * {@value #MAX_TURNS_IN_A_ROW} turns in a row within this JVM, the holder's release goes through
 * Redis, open to every instance; if other instances' waiters wait for it (the waiting marker
 * names their instances), this JVM's waiters stand back until one of those has had it, or for at
 * most {@value #YIELD_MILLIS} ms. Not thread-safe: the {@link WaitingLine} it belongs to guards it.
 */
final class HandOffFairness {

	/** Turns within this JVM before a release goes through Redis, open to every instance. */
	static final int MAX_TURNS_IN_A_ROW = 16;

	/** How long this JVM's waiters stand back after yielding the lock to another instance's. */
	static final long YIELD_MILLIS = 10;

	/** Releases of this JVM's holders while this JVM's threads waited, since the last yield. */
	private int turnsInARow;

	/**
	 * Whether this JVM's waiters stand back after yielding: until another instance releases
	 * the lock, or {@link #standingBackUntil}.
	 */
	private boolean standingBack;

	private long standingBackUntil;

	/**
	 * Counts a turn within this JVM, while its threads wait.
	 * @return whether this release must yield the lock to every instance instead, which starts
	 * the count again
	 */
	boolean yieldsTurn() {
		if (this.turnsInARow >= MAX_TURNS_IN_A_ROW) {
			this.turnsInARow = 0;
			return true;
		}
		this.turnsInARow++;
		return false;
	}

	/** Lets another instance's waiter take the lock just yielded. */
	void standBack() {
		this.standingBack = true;
		this.standingBackUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(YIELD_MILLIS);
	}

	/** How much longer this JVM's waiters stand back; 0 when they may ask. */
	long standingBackNanos() {
		long remaining = this.standingBackUntil - System.nanoTime();
		this.standingBack = this.standingBack && remaining > 0;
		return this.standingBack ? remaining : 0;
	}

	/**
	 * Notes a release of the lock.
	 * @param byOtherInstance whether another instance released the lock, which ends standing back
	 */
	void released(boolean byOtherInstance) {
		this.standingBack = this.standingBack && !byOtherInstance;
	}

}
