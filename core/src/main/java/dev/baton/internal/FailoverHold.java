package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Holds writes back while Redis Sentinel promotes a replica, so that none lands on the old
 * primary after the promotion, where it would be lost once the sentinels demote it: a claim the
 * new primary never saw runs its tasks again, an acknowledgement it never saw runs them again
 * after their visibility timeout. The hold begins when the sentinels are about to promote the
 * replica and ends once the application follows the switch, when the failover is aborted, or at
 * the latest after a bound, whichever comes first.
 *
 * <p>An application that was frozen while the sentinels failed the primary over (a long
 * stop-the-world pause, a suspended VM) has their messages unread in its sockets when it runs again,
 * and its first writes would go to the old primary, which takes them until it is demoted: a lock
 * granted there is unknown to the new primary, which grants it to someone else. So after a
 * {@linkplain FreezeDetector freeze} a write waits until the messages that came meanwhile are read
 * ({@link #awaitTurn}; {@link #quietTurn} for a write nobody waits for), and a reply that a
 * freeze may have delayed counts only if no failover began since the write went out
 * ({@link #checkReply}).
 */
public final class FailoverHold {

	private static final CompletableFuture<Void> OPEN = CompletableFuture.completedFuture(null);

	/** How long a write that nobody waits for waits at most for the messages after a freeze. */
	private static final Duration QUIET_CATCH_UP_LIMIT = Duration.ofSeconds(1);

	/** A hold that never holds anything: for connections that do not use Sentinel. */
	public static final FailoverHold NONE = new FailoverHold(Duration.ZERO);

	private final Duration limit;

	private final FreezeDetector freezes;

	private final CatchUp catchUp;

	private volatile CompletableFuture<Void> ready = OPEN;

	/** How many failovers began or switches were heard of: a write's reply counts under the count it went out with. */
	private final AtomicLong failovers = new AtomicLong();

	/** When the last catch-up that completed began, as {@link System#nanoTime()}. */
	private volatile long caughtUpFrom = System.nanoTime();

	/**
	 * A hold that is open now, for an application that is never frozen.
	 * @param limit how long a hold lasts at most, if nothing ends it before; zero for never holding
	 */
	public FailoverHold(Duration limit) {
		this(limit, FreezeDetector.NONE, () -> OPEN);
	}

	/**
	 * A hold that is open now.
	 * @param limit how long a hold lasts at most, if nothing ends it before; zero for never holding
	 * @param freezes what tells that the application was frozen
	 * @param catchUp reads the sentinels' messages that came while it was
	 */
	FailoverHold(Duration limit, FreezeDetector freezes, CatchUp catchUp) {
		this.limit = limit;
		this.freezes = freezes;
		this.catchUp = catchUp;
	}

	/**
	 * Completes once writes may go out: at once unless a failover is under way.
	 * @return a future that nobody must complete but the hold
	 */
	public CompletableFuture<Void> ready() {
		return this.ready;
	}

	/** Whether writes are held back now. */
	public boolean holding() {
		return !this.ready.isDone();
	}

	/** How long a hold lasts at most. */
	Duration limit() {
		return this.limit;
	}

	/**
	 * Waits until a write may go out: first reads the sentinels' messages if the application was
	 * frozen since they were last read, then waits while a failover holds writes back, all
	 * within the timeout.
	 * @param timeout how long the write may take in all
	 * @return the write's turn: what is left of the timeout, and what {@link #checkReply} needs
	 * @throws IllegalStateException if the hold outlasted the timeout: nothing was sent
	 */
	Turn awaitTurn(Duration timeout) {
		long start = System.nanoTime();
		if (this.freezes.frozeSince(this.caughtUpFrom)) {
			catchUp(timeout);
		}
		CompletableFuture<Void> ready = this.ready;
		boolean held = !ready.isDone() && AsyncScripts
			.awaitRestoringInterrupt(ready.copy(), timeout.minusNanos(System.nanoTime() - start))
			.failure() != null;
		Duration left = timeout.minusNanos(System.nanoTime() - start);
		if (held || left.isNegative() || left.isZero()) {
			throw new IllegalStateException("not sent, as Redis Sentinel was still switching the primary after "
					+ timeout.toMillis() + " ms");
		}
		return new Turn(left, this.failovers.get(), System.nanoTime());
	}

	/**
	 * Checks the reply to a write sent in its turn. A reply counts unless the application may
	 * have been frozen since the write went out and, once the messages of that time are read, a
	 * failover began meanwhile: the write may then have gone to the old primary.
	 * @param turn the write's turn
	 * @throws IllegalStateException if the reply does not count; what the write did is unknown
	 */
	void checkReply(Turn turn) {
		if (!this.freezes.frozeSince(turn.startedAt())) {
			return;
		}
		// As long as the write could take again: after a real freeze none of its time is left, and
		// the messages must still be read before the reply may count.
		catchUp(turn.left());
		if (this.failovers.get() != turn.failovers()) {
			throw new IllegalStateException("Redis Sentinel failed the primary over while this application was frozen:"
					+ " the reply may have come from the old primary");
		}
	}

	/**
	 * Completes once a write that nobody waits for may go out: as {@link #awaitTurn}, without
	 * blocking the caller.
	 * @return a future that nobody must complete but the hold
	 */
	CompletableFuture<Void> quietTurn() {
		if (!this.freezes.frozeSince(this.caughtUpFrom)) {
			return this.ready;
		}
		long start = System.nanoTime();
		return this.catchUp.start()
			.completeOnTimeout(null, QUIET_CATCH_UP_LIMIT.toNanos(), TimeUnit.NANOSECONDS)
			.handle((read, failure) -> caughtUp(start))
			.thenCompose((caughtUp) -> this.ready);
	}

	/**
	 * Waits for the messages within the bound, through interrupts as for a reply: a write that
	 * went out before them could land on the old primary. A sentinel that does not answer has
	 * nothing to tell; the others' messages are read.
	 */
	private void catchUp(Duration bound) {
		long start = System.nanoTime();
		AsyncScripts.awaitRestoringInterrupt(this.catchUp.start(), bound);
		caughtUp(start);
	}

	private @Nullable Void caughtUp(long start) {
		this.caughtUpFrom = start;
		return null;
	}

	/** A failover began or a switch was heard of: replies to writes sent before may be the old primary's. */
	void failoverSeen() {
		this.failovers.incrementAndGet();
	}

	/**
	 * A failover is about to promote a replica: writes wait from now on.
	 * @return whether this began a hold, false if one was under way or holds are off
	 */
	synchronized boolean begin() {
		if (this.limit.isZero() || holding()) {
			return false;
		}
		CompletableFuture<Void> held = new CompletableFuture<>();
		this.ready = held;
		held.completeOnTimeout(null, this.limit.toNanos(), TimeUnit.NANOSECONDS);
		return true;
	}

	/** The failover ended or was aborted: writes go out again. */
	void end() {
		this.ready.complete(null);
	}

	/**
	 * When a write may go out and what its reply is checked against.
	 * @param left what is left of the write's timeout
	 * @param failovers the failovers seen before it went out
	 * @param startedAt when it went out, as {@link System#nanoTime()}
	 */
	record Turn(Duration left, long failovers, long startedAt) {

	}

	/** Reads the sentinels' messages. */
	@FunctionalInterface
	interface CatchUp {

		/**
		 * Starts reading the messages.
		 * @return completes once every message the sentinels sent before the call was read, or
		 * exceptionally if a sentinel does not answer
		 */
		CompletableFuture<?> start();

	}

}
