package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Holds writes back while Redis Sentinel promotes a replica, so that none lands on the old
 * primary after the promotion, where it would be lost once the sentinels demote it: a claim the
 * new primary never saw runs its tasks again, an acknowledgement it never saw runs them again
 * after their visibility timeout. The hold begins when the sentinels are about to promote the
 * replica and ends once the application follows the switch, when the failover is aborted, or at
 * the latest after a bound, whichever comes first.
 */
public final class FailoverHold {

	private static final CompletableFuture<Void> OPEN = CompletableFuture.completedFuture(null);

	/** A hold that never holds anything: for connections that do not use Sentinel. */
	public static final FailoverHold NONE = new FailoverHold(Duration.ZERO);

	private final Duration limit;

	private volatile CompletableFuture<Void> ready = OPEN;

	/**
	 * A hold that is open now.
	 * @param limit how long a hold lasts at most, if nothing ends it before; zero for never holding
	 */
	public FailoverHold(Duration limit) {
		this.limit = limit;
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

}
