package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * A lease on a lock of a {@link LockTable}. Like a lease on a free Redis lock taken at once, it
 * has no fencing token until one is asked for, and gets one only while it holds the lock; a lease
 * restored from a token has the token's.
 */
final class InMemoryLease implements LockLease {

	/** Where this lease stands as far as its holder's calls go; whether it holds the lock is the table's. */
	enum State {

		HELD, RELEASED, HANDED_OVER, LOST,

		/** Given by a restore that found the lock ran out, released or held by another owner. */
		UNRESTORED

	}

	private final LockTable table;

	private final InMemoryLockManager manager;

	private final LockRequest request;

	private final Instant acquiredAt;

	private final AtomicReference<State> state;

	private volatile long token;

	InMemoryLease(LockTable table, InMemoryLockManager manager, LockRequest request, Instant acquiredAt) {
		this(table, manager, request, acquiredAt, State.HELD, 0);
	}

	private InMemoryLease(LockTable table, InMemoryLockManager manager, LockRequest request, Instant acquiredAt,
			State state, long token) {
		this.table = table;
		this.manager = manager;
		this.request = request;
		this.acquiredAt = acquiredAt;
		this.state = new AtomicReference<>(state);
		this.token = token;
	}

	/**
	 * The lease a restore gives, with the token's fencing token: held if {@code held}, else one that
	 * never was, whose {@code fencingToken()}, {@code extend} and {@code handOver} throw
	 * {@link LeaseLostException} and whose release changes nothing.
	 */
	static InMemoryLease restored(LockTable table, InMemoryLockManager manager, LeaseToken token, Instant now,
			boolean held) {
		LockRequest request = LockRequest.of(token.name()).leaseTime(token.leaseTime()).build();
		return new InMemoryLease(table, manager, request, now, held ? State.HELD : State.UNRESTORED,
				token.fencingToken());
	}

	InMemoryLockManager manager() {
		return this.manager;
	}

	@Override
	public String name() {
		return this.request.name();
	}

	/** The lease time it was taken with, or {@code null} if it is renewed while its manager is open. */
	@Nullable Duration leaseTime() {
		return this.request.leaseTime();
	}

	@Override
	public synchronized long fencingToken() {
		if (this.state.get() == State.UNRESTORED) {
			throw lost("has no fencing token");
		}
		long issued = issuedToken();
		if (issued == 0) {
			State now = this.state.get();
			String how = (now == State.HELD) ? "lost" : now.name().toLowerCase(Locale.ROOT).replace('_', ' ');
			throw new IllegalStateException(
					"Lock '" + name() + "' has no fencing token: this lease was " + how + " before one was asked for");
		}
		return issued;
	}

	/** The fencing token, issued now if this lease still holds its lock; 0 if it has none. */
	private synchronized long issuedToken() {
		if (this.token == 0 && this.state.get() == State.HELD) {
			this.token = this.table.issueToken(this);
		}
		return this.token;
	}

	@Override
	public boolean isValid() {
		return this.state.get() == State.HELD && this.table.holds(this);
	}

	@Override
	public void release() {
		releaseOwned();
	}

	/**
	 * Releases the lock if this lease still holds it.
	 * @return {@code false} if the lease had been lost, so nothing was freed; {@code true} if it
	 * was freed now, released before or handed over
	 */
	boolean releaseOwned() {
		State before = leave(State.RELEASED);
		if (before != State.HELD) {
			return before == State.RELEASED || before == State.HANDED_OVER;
		}
		return this.table.release(this, null);
	}

	@Override
	public void release(Duration lockAtLeastFor) {
		if (leave(State.RELEASED) == State.HELD) {
			this.table.release(this, this.acquiredAt.plus(lockAtLeastFor));
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>On the clock of the lock manager; a renewed lease keeps the extension when its renewals
	 * stop (hand-over, {@code close()}).
	 */
	@Override
	public void extend(Duration leaseTime) {
		LockRequest.checkExtension(name(), leaseTime);
		requireHeld("cannot be extended");
		if (!this.table.extend(this, leaseTime)) {
			throw lostNow("was not extended");
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>A renewed lease stops being renewed: its lock runs out one lease time of its manager from
	 * now on the clock, or when an extension ends if that is later, unless it is restored first.
	 */
	@Override
	public LeaseToken handOver() {
		requireHeld("cannot be handed over");
		long fencingToken = issuedToken();
		String owner = (fencingToken != 0) ? this.table.handOver(this) : null;
		if (owner == null) {
			throw lostNow("was not handed over");
		}
		return new LeaseToken(name(), owner, fencingToken, leaseTime());
	}

	/** Marks the lease handed over if it was held: {@code true} if it was. */
	boolean handingOver() {
		return leave(State.HANDED_OVER) == State.HELD;
	}

	/** Makes a lease handed over held again, its token unused: {@code true} if it was handed over. */
	boolean takenBack() {
		return this.state.compareAndSet(State.HANDED_OVER, State.HELD);
	}

	/** Marks the lease lost if it was held, as {@code releaseAll()} does: {@code true} if it was. */
	boolean markLost() {
		return leave(State.LOST) == State.HELD;
	}

	/** Leaves the held state for {@code next}, if held: the state before. */
	private State leave(State next) {
		// Looked at again when a failed change met a state that takenBack() turned back to held.
		while (true) {
			State before = this.state.get();
			if (before != State.HELD || this.state.compareAndSet(State.HELD, next)) {
				return before;
			}
		}
	}

	private void requireHeld(String what) {
		if (this.state.get() == State.UNRESTORED) {
			throw lost(what);
		}
		if (this.state.get() != State.HELD) {
			throw new LeaseLostException(
					"Lock '" + name() + "' " + what + ": this lease was released, lost or handed over");
		}
	}

	/** The lease found that it no longer holds its lock: marks it lost and says so. */
	private LeaseLostException lostNow(String what) {
		markLost();
		return new LeaseLostException("Lock '" + name() + "' " + what
				+ ": its lease was lost (it ran out, or the lock was deleted or taken)");
	}

	private LeaseLostException lost(String what) {
		return new LeaseLostException("Lock '" + name() + "' was not restored from its token, so this lease " + what
				+ ": the lock ran out, was released, or another owner holds it (the token may have been restored before)");
	}

	/**
	 * Whether its holder may still use this lease: not released (perhaps to be kept a while),
	 * handed over or lost, whether or not its time ran out.
	 */
	boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/**
	 * This lease as a held lock, at {@code now} on the clock.
	 * @param expiresAt when its lock frees itself
	 * @param renewed whether it is renewed, and so valid for its lease time at least
	 * @param leaseTime how long a renewed lock stays held once renewals stop
	 */
	HeldLock describe(Instant now, Instant expiresAt, boolean renewed, Duration leaseTime) {
		Duration validFor = Duration.between(now, expiresAt);
		if (renewed && validFor.compareTo(leaseTime) < 0) {
			validFor = leaseTime;
		}
		return new HeldLock(name(), this.request.group(), this.token, Duration.between(this.acquiredAt, now),
				validFor.isNegative() ? Duration.ZERO : validFor, renewed);
	}

	@Override
	public String toString() {
		return "LockLease[" + name() + ", token " + this.token + ", " + this.state.get() + "]";
	}

}
