package dev.baton.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/** A lease on a lock in Redis, released through the manager that granted it. */
final class RedisLockLease implements LockLease {

	enum State {

		HELD, RELEASED, LOST

	}

	private final RedisLockManager manager;

	private final LockRequest request;

	private final LockKeys keys;

	private final String owner;

	private final long fencingToken;

	private final long acquiredAt = System.nanoTime();

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	RedisLockLease(RedisLockManager manager, LockRequest request, LockKeys keys, String owner, long fencingToken) {
		this.manager = manager;
		this.request = request;
		this.keys = keys;
		this.owner = owner;
		this.fencingToken = fencingToken;
	}

	@Override
	public String name() {
		return this.request.name();
	}

	String group() {
		return this.request.group();
	}

	LockKeys keys() {
		return this.keys;
	}

	String owner() {
		return this.owner;
	}

	/** Whether the watchdog renews this lease: it was taken without a lease time. */
	boolean isRenewed() {
		return this.request.leaseTime() == null;
	}

	long heldNanos() {
		return System.nanoTime() - this.acquiredAt;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public boolean isValid() {
		Duration leaseTime = this.request.leaseTime();
		return this.state.get() == State.HELD && (leaseTime == null || heldNanos() < leaseTime.toNanos());
	}

	/** How much longer this lease is valid: until released or lost if the watchdog renews it. */
	long validForMillis() {
		Duration leaseTime = this.request.leaseTime();
		return (leaseTime != null) ? Math.max(TimeUnit.NANOSECONDS.toMillis(leaseTime.toNanos() - heldNanos()), 0)
				: Long.MAX_VALUE;
	}

	@Override
	public void release() {
		releaseOwned();
	}

	@Override
	public void release(Duration lockAtLeastFor) {
		long keepNanos = lockAtLeastFor.toNanos() - heldNanos();
		if (keepNanos <= 0) {
			release();
		}
		else if (leave(State.RELEASED)) {
			this.manager.keep(this, Duration.ofNanos(keepNanos));
		}
	}

	/**
	 * Releases the lock in Redis.
	 * @return {@code false} if the lease had been lost, so nothing was deleted
	 */
	boolean releaseOwned() {
		State before = this.state.get();
		if (before == State.LOST) {
			return false;
		}
		return !leave(State.RELEASED) || this.manager.release(this);
	}

	/** Marks the lease lost; {@code true} if it was held until now. */
	boolean markLost() {
		return leave(State.LOST);
	}

	private boolean leave(State next) {
		return this.state.compareAndSet(State.HELD, next);
	}

	@Override
	public String toString() {
		return "LockLease[" + name() + ", token " + this.fencingToken + ", " + this.state.get() + "]";
	}

}
