package dev.baton.lock.redis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The line of this JVM's threads that wait for one lock, in order of arrival. Only the first in
 * line asks for the lock: after each release, whether published by Redis or made by this JVM
 * ({@link #signal}), and without one when the holder's lease would run out. While a thread of
 * this JVM holds the lock, nobody in line asks.
 *
 * <p>A holder of this JVM that releases the lock {@linkplain #claim() claims} the first waiter
 * that is not asking at that moment and {@linkplain #handOff hands} it the lock, which is never
 * free in between; {@link HandOffFairness} says when it yields to other instances instead. A
 * waiter interrupted once its hand-off began takes the lock and keeps the interrupt.
 *
 * <p>The line knows nothing of Redis: how a waiter takes the lock is its {@link Waiter}'s
 * business, so that the line can be tested with fakes.
 * @param <L> the leases on the lock
 */
final class WaitingLine<L extends WaitingLine.Lease> {

	/** Cap of one wait for a release, so that a waiter refreshes its waiting marker. */
	static final long MAX_WAIT_STEP_MILLIS = 30_000;

	private final ReentrantLock signals = new ReentrantLock();

	private final Deque<Offer<L>> line = new ArrayDeque<>();

	private final HandOffFairness fairness = new HandOffFairness();

	/** Releases seen in Redis or made here: the first in line asks Redis after each. */
	private long releases;

	/** The lease of a thread of this JVM that took the lock in this line, until a release. */
	private @Nullable L holder;

	/** What the line needs to know of the lease of a holder in this JVM. */
	interface Lease {

		boolean isValid();

		/** How much longer this lease is valid: until released or lost if the watchdog renews it. */
		long validForMillis();

	}

	/**
	 * One waiter's attempts to take the lock.
	 * @param <L> the leases on the lock
	 */
	interface Waiter<L> {

		/** The acquired lease, or {@code null} with {@link #retryInMillis()} set. */
		@Nullable L attempt();

		/** After a failed attempt, when the holder's lease runs out. */
		long retryInMillis();

		/** Takes the lock straight from a holder in this JVM. */
		HandOff<L> takeOver(L holder);

	}

	/**
	 * What a hand-off did.
	 * @param lease the waiter's lease, or {@code null} when it did not get the lock: the holder had
	 * lost it, or it was refused (then the holder's lock is released and the waiter asks Redis)
	 * @param holderHeld whether the holder still held the lock
	 * @param <L> the leases on the lock
	 */
	record HandOff<L>(@Nullable L lease, boolean holderHeld) {

		/** The holder had lost the lock: nothing to hand over. */
		static <L> HandOff<L> lost() {
			return new HandOff<>(null, false);
		}

		/** The holder's lock was released instead of handed over: the waiter must ask Redis. */
		static <L> HandOff<L> refused() {
			return new HandOff<>(null, true);
		}

		static <L> HandOff<L> to(L lease) {
			return new HandOff<>(lease, true);
		}

	}

	/**
	 * What a release of this JVM's holder does.
	 * @param offer the waiter to hand the lock to, or {@code null} to release it in Redis
	 * @param yield whether to let every instance's waiters compete for it
	 * @param <L> the leases on the lock
	 */
	record Claim<L>(@Nullable Offer<L> offer, boolean yield) {

		/** Nobody to hand the lock to: it is released in Redis. */
		static <L> Claim<L> nobody() {
			return new Claim<>(null, false);
		}

		static <L> Claim<L> yielding() {
			return new Claim<>(null, true);
		}

	}

	/**
	 * A waiter in line; guarded by its line's signals.
	 * @param <L> the leases on the lock
	 */
	static final class Offer<L> {

		private final Waiter<L> waiter;

		/** Signalled when this waiter is handed the lock or becomes first in line. */
		private final Condition wake;

		private boolean asking;

		private boolean claimed;

		private boolean completed;

		private @Nullable L lease;

		Offer(Waiter<L> waiter, Condition wake) {
			this.waiter = waiter;
			this.wake = wake;
		}

	}

	/**
	 * Waits in line until an attempt of the waiter succeeds, a holder of this JVM hands it the
	 * lock, or the wait runs out.
	 * @return the lease, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted while the wait is interruptible
	 */
	@Nullable L await(Waiter<L> waiter, LockWait wait) throws InterruptedException {
		this.signals.lock();
		try {
			Offer<L> offer = new Offer<>(waiter, this.signals.newCondition());
			this.line.addLast(offer);
			try {
				return takeTurns(offer, wait);
			}
			catch (InterruptedException ex) {
				L lease = offer.claimed ? handedOver(offer) : null;
				if (lease == null) {
					throw ex;
				}
				// The hand-off began before the interrupt: take the lock, keep the interrupt.
				Thread.currentThread().interrupt();
				return lease;
			}
			finally {
				leaveLine(offer);
			}
		}
		finally {
			this.signals.unlock();
		}
	}

	/** Waits in line, asking Redis when first, until the lock is taken or the wait runs out. */
	private @Nullable L takeTurns(Offer<L> offer, LockWait wait) throws InterruptedException {
		long asked = -1;
		long retryAt = 0;
		while (true) {
			if (offer.claimed) {
				L lease = handedOver(offer);
				if (lease != null) {
					return lease;
				}
				// The holder had lost the lock, or the hand-off was refused: ask Redis, if the wait allows.
				offer.claimed = false;
				offer.completed = false;
				asked = -1;
				if (wait.remainingNanos() <= 0) {
					return null;
				}
			}
			L holder = knownHolder();
			boolean first = this.line.peekFirst() == offer;
			long standingBack = this.fairness.standingBackNanos();
			if (first && holder == null && standingBack == 0
					&& (asked != this.releases || System.nanoTime() - retryAt >= 0)) {
				asked = this.releases;
				L lease = ask(offer);
				if (lease != null) {
					this.holder = lease;
					return lease;
				}
				retryAt = System.nanoTime() + millisToNanos(offer.waiter.retryInMillis());
				continue;
			}
			long remaining = wait.remainingNanos();
			if (remaining <= 0) {
				return null;
			}
			if (first) {
				// Wait for a hand-off while the holder's lease lasts, or for a release until the next try.
				long step = (holder != null) ? millisToNanos(holder.validForMillis())
						: (standingBack > 0) ? standingBack : retryAt - System.nanoTime();
				remaining = Math.min(remaining, Math.max(step, 1));
			}
			wait.await(offer.wake, remaining);
		}
	}

	/** One attempt in Redis, made outside the signals lock so that holders can release meanwhile. */
	private @Nullable L ask(Offer<L> offer) {
		offer.asking = true;
		this.signals.unlock();
		try {
			return offer.waiter.attempt();
		}
		finally {
			this.signals.lock();
			offer.asking = false;
		}
	}

	private @Nullable L handedOver(Offer<L> offer) {
		while (!offer.completed) {
			offer.wake.awaitUninterruptibly();
		}
		return offer.lease;
	}

	private void leaveLine(Offer<L> offer) {
		boolean wasFirst = this.line.peekFirst() == offer;
		this.line.remove(offer);
		if (wasFirst) {
			wakeFirst();
		}
	}

	private void wakeFirst() {
		Offer<L> first = this.line.peekFirst();
		if (first != null) {
			first.wake.signal();
		}
	}

	private @Nullable L knownHolder() {
		return (this.holder != null && this.holder.isValid()) ? this.holder : null;
	}

	private static long millisToNanos(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(Math.max(Math.min(millis, MAX_WAIT_STEP_MILLIS), 1));
	}

	/**
	 * Claims the first waiter in line that is not asking Redis, to hand the lock to. Whether
	 * handed over or released here for the first in line to take, the lock stays in this JVM;
	 * after {@value HandOffFairness#MAX_TURNS_IN_A_ROW} such turns in a row, it yields.
	 */
	Claim<L> claim() {
		this.signals.lock();
		try {
			if (this.line.isEmpty()) {
				return Claim.nobody();
			}
			if (this.fairness.yieldsTurn()) {
				return Claim.yielding();
			}
			for (Offer<L> offer : this.line) {
				if (!offer.asking && !offer.claimed) {
					offer.claimed = true;
					return new Claim<>(offer, false);
				}
			}
			return Claim.nobody();
		}
		finally {
			this.signals.unlock();
		}
	}

	/**
	 * Hands the lock of a holder of this JVM to the waiter claimed for it, which takes it over,
	 * and wakes that waiter with what it got.
	 */
	HandOff<L> handOff(Offer<L> offer, L holder) {
		HandOff<L> handOff = null;
		try {
			handOff = offer.waiter.takeOver(holder);
		}
		finally {
			complete(offer, (handOff != null) ? handOff.lease() : null);
		}
		return handOff;
	}

	private void complete(Offer<L> offer, @Nullable L lease) {
		this.signals.lock();
		try {
			offer.lease = lease;
			offer.completed = true;
			this.holder = lease;
			offer.wake.signal();
		}
		finally {
			this.signals.unlock();
		}
	}

	/** Lets another instance's waiter take the lock just yielded. */
	void standBack() {
		this.signals.lock();
		try {
			this.fairness.standBack();
		}
		finally {
			this.signals.unlock();
		}
	}

	/**
	 * Notes a release and wakes the first in line.
	 * @param byOtherInstance whether another instance released the lock, which ends standing back
	 */
	void signal(boolean byOtherInstance) {
		this.signals.lock();
		try {
			this.releases++;
			this.holder = null;
			this.fairness.released(byOtherInstance);
			wakeFirst();
		}
		finally {
			this.signals.unlock();
		}
	}

}
