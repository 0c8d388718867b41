package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import dev.baton.queue.spi.WakeSignal;

/**
 * Decides when an idle listener container claims, from its queue's wake signals.
 *
 * <p>A task scheduled to fall due later only moves the container's next claim earlier. When
 * several instances are woken for the same tasks (a task falls due, a wake-up), each that has seen
 * other instances claim waits a short random while, and leaves the tasks to the first claim if
 * that claim says it took every task due in the partition: so a task costs about one claim, not
 * one per waiting instance. Otherwise the container claims: when in doubt (a timer on a queue of
 * several partitions, a claim that left tasks due, a signal it cannot read) and at every idle
 * poll.
 */
final class ClaimPacer {

	/** The queue's partition count: each partition signals on a channel of its own. */
	private final IntSupplier partitions;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/** Numbers the signals in the order they came, which is the order Redis published them. */
	private long sequence;

	/** The number of the last due signal, whether due now or later. */
	private long lastDueNumber;

	/** Claim at once: stop, room for more tasks, a (re)subscription, a signal it cannot read. */
	private boolean woken;

	/** The partitions with a task due now since the last claim, by channel. */
	private final Map<String, DueMark> due = new HashMap<>();

	/** Other instances' claims, for whether one took the tasks this container was woken for. */
	private final PeerClaims peers = new PeerClaims();

	/** The earliest local time a signalled task falls due, as {@link System#nanoTime()}. */
	private long dueAtNanos = Long.MAX_VALUE;

	/** That task's due time as signalled, Redis time: what a claim must have passed to take it. */
	private @Nullable Instant dueAtServer;

	/** The Redis clock when the container's last claim ran. */
	private volatile Instant lastClaimServerTime = Instant.EPOCH;

	/** How far the Redis clock is ahead of this one, as the last claim measured it. */
	private volatile Duration serverClockAhead = Duration.ZERO;

	/** How long the last claim took, there and back. */
	private volatile long claimNanos;

	/** Claims this pacer let the container leave to another instance, for tests and status. */
	private long left;

	ClaimPacer(IntSupplier partitions) {
		this.partitions = partitions;
	}

	/** Takes a signal of the queue's wake channels; called on the notification thread. */
	void signal(WakeSignal signal) {
		this.lock.lock();
		try {
			long number = ++this.sequence;
			if (signal instanceof WakeSignal.Due dueSignal) {
				this.lastDueNumber = number;
				Instant at = dueSignal.at();
				long inNanos = (at != null) ? Duration.between(serverNow(), at).toNanos() : 0;
				if (at == null) {
					this.woken = true;
				}
				else if (inNanos > 0) {
					if (this.dueAtServer == null || at.isBefore(this.dueAtServer)) {
						this.dueAtServer = at;
						this.dueAtNanos = System.nanoTime() + inNanos;
					}
				}
				else {
					this.due.put(dueSignal.channel(), new DueMark(number, at));
				}
			}
			else if (signal instanceof WakeSignal.Taken takenSignal && !takenSignal.own()) {
				// Only other instances' claims: this container learns what its own took from their
				// replies (a lone consumer left a task waiting for its idle poll when it counted its
				// own claims here; found by the contract suite, cause not pinned down).
				this.peers.claimed(number, takenSignal);
				if (takenSignal.nextDueIn() != null && takenSignal.nextDueIn().isZero()) {
					// It left tasks due: this instance claims too.
					this.woken = true;
				}
			}
			else if (signal instanceof WakeSignal.Taken) {
				// This container's own claim: its reply said what it took.
			}
			else {
				this.woken = true;
			}
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Makes the container claim at once. */
	void wake() {
		this.lock.lock();
		try {
			this.woken = true;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Records what the container's claim measured.
	 * @param serverClockAhead how far the Redis clock is ahead of this one
	 * @param roundTrip how long the claim took
	 * @param serverTime the Redis clock when it ran
	 */
	void claimed(Duration serverClockAhead, Duration roundTrip, Instant serverTime) {
		this.serverClockAhead = serverClockAhead;
		this.claimNanos = roundTrip.toNanos();
		this.lastClaimServerTime = serverTime;
	}

	/**
	 * Waits until woken, a task is signalled due, or the timeout passes, whichever comes first.
	 */
	void await(Duration timeout, BooleanSupplier active) {
		this.lock.lock();
		try {
			long until = System.nanoTime() + timeout.toNanos();
			awaitTrigger(until, active);
			clear();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until the container should claim: when woken, when a task is signalled due, or when
	 * the next task falls due, unless another instance's claim took the tasks meanwhile.
	 * @param nextDueIn when the next task falls due as the last claim said, or {@code null}
	 * @param maxIdle the longest wait
	 * @param active whether the container still runs
	 */
	void awaitClaim(@Nullable Duration nextDueIn, Duration maxIdle, BooleanSupplier active) {
		this.lock.lock();
		try {
			long now = System.nanoTime();
			long pollAt = now + maxIdle.toNanos();
			long nextDueAt = (nextDueIn != null) ? now + nextDueIn.toNanos() : Long.MAX_VALUE;
			// The due time a timer stands for, exactly as Redis gave it: converted back from the
			// local clock it could fall a little before a claim's next due time, and be left out.
			Instant nextDueServer = (nextDueIn != null) ? this.lastClaimServerTime.plus(nextDueIn) : Instant.MAX;
			while (active.getAsBoolean()) {
				long until = Math.min(pollAt, Math.min(nextDueAt, this.dueAtNanos));
				boolean timed = awaitTrigger(until, active);
				long reached = Math.min(until, this.dueAtNanos);
				if (this.woken || !active.getAsBoolean() || (timed && reached == pollAt)) {
					break;
				}
				Instant target = (reached == this.dueAtNanos && this.dueAtServer != null) ? this.dueAtServer
						: nextDueServer;
				Instant nothingDueUntil = timed ? takenPast(target) : takenAfterDueSignals();
				if (nothingDueUntil == null && this.peers.count() > 0) {
					// Woken for due tasks, like the other instances: let the first claim take them.
					awaitJitter(active);
					if (this.woken) {
						break;
					}
					nothingDueUntil = timed ? takenPast(target) : takenAfterDueSignals();
				}
				if (nothingDueUntil == null) {
					break;
				}
				this.left++;
				if (timed) {
					clear();
				}
				else {
					// The claim covers the tasks due when it ran, not one signalled due later that
					// fell due while this container waited (or jittered): the next turn decides on
					// that one as a timer would, so its due time must not be forgotten here.
					clearWake();
				}
				nextDueServer = nothingDueUntil;
				nextDueAt = nothingDueUntil.equals(Instant.MAX) ? Long.MAX_VALUE
						: System.nanoTime() + Math.max(0, Duration.between(serverNow(), nothingDueUntil).toNanos());
			}
			clear();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How many claims were left to other instances. */
	long claimsLeftToOthers() {
		this.lock.lock();
		try {
			return this.left;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits for a wake-up, a due signal or {@code until}; returns whether the time ran out. The
	 * caller holds the lock.
	 */
	private boolean awaitTrigger(long until, BooleanSupplier active) {
		long nanos = until - System.nanoTime();
		while (!this.woken && this.due.isEmpty() && active.getAsBoolean() && nanos > 0
				&& this.dueAtNanos > System.nanoTime()) {
			try {
				nanos = this.changed.awaitNanos(Math.min(nanos, this.dueAtNanos - System.nanoTime()));
				nanos = until - System.nanoTime();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return !this.woken && this.due.isEmpty();
	}

	private void awaitJitter(BooleanSupplier active) {
		long jitter = this.peers.jitterNanos(this.claimNanos);
		long until = System.nanoTime() + jitter;
		long nanos;
		while (!this.woken && active.getAsBoolean() && (nanos = until - System.nanoTime()) > 0) {
			try {
				this.changed.awaitNanos(nanos);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * Whether another instance's claim, after each due signal, took every task due in its
	 * partition: then until when nothing is due ({@link Instant#MAX} for never), else {@code null}.
	 */
	private @Nullable Instant takenAfterDueSignals() {
		if (this.due.isEmpty()) {
			return null;
		}
		Instant until = Instant.MAX;
		for (Map.Entry<String, DueMark> entry : this.due.entrySet()) {
			Instant next = this.peers.nothingDueUntil(entry.getKey(), entry.getValue().number());
			if (next == null || !next.isAfter(entry.getValue().at())) {
				return null;
			}
			until = next.isBefore(until) ? next : until;
		}
		return until;
	}

	/**
	 * Whether a claim after the last due signal left nothing due at {@code target}, on a queue of
	 * one partition (with several, the timer does not say which partition is due): then until when
	 * nothing is due, else {@code null}. A claim before {@code target} that saw the task due then
	 * says it is due then; one made before the task was scheduled came before its due signal.
	 */
	private @Nullable Instant takenPast(Instant target) {
		if (this.partitions.getAsInt() != 1) {
			return null;
		}
		Instant next = this.peers.nothingDueUntilOnlyChannel(this.lastDueNumber);
		return (next != null && next.isAfter(target)) ? next : null;
	}

	/** Forgets what the claim about to be made, or left to another instance, answers. */
	private void clear() {
		clearWake();
		if (this.dueAtNanos <= System.nanoTime()) {
			this.dueAtNanos = Long.MAX_VALUE;
			this.dueAtServer = null;
		}
	}

	/** Forgets the wake-ups and the tasks signalled due now, but not a task signalled due later. */
	private void clearWake() {
		this.woken = false;
		this.due.clear();
	}

	private Instant serverNow() {
		return Instant.now().plus(this.serverClockAhead);
	}

	private record DueMark(long number, Instant at) {

	}

}
