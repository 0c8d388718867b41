package dev.baton.lock.redis;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * A lease on a lock in Redis, released through the manager that granted it.
 *
 * <p>The lease knows how long it is valid on this JVM's monotonic clock: until its lease time
 * has passed since the last acquire or renewal that Redis acknowledged, counted from when that
 * command was <em>sent</em>. Redis cannot have expired the key before then, whatever the network
 * does afterwards; past it, the key may be gone and another owner may hold it.
 *
 * <p>A renewed lease, once released, may pass straight to a waiter of this JVM: Redis keeps the
 * owner it has, and the waiter's lease has the same owner, the next fencing token that Redis
 * reserved for the holder's acquisition, and the same expiry. Only one of the two is ever held:
 * the holder's is released before it passes on.
 *
 * <p>A lease that took a free lock at once has no fencing token until one is asked for, and is
 * not passed on without one.
 */
final class RedisLockLease implements LockLease, WaitingLine.Lease {

	enum State {

		HELD, RELEASED, LOST, HANDED_OVER

	}

	private final RedisLockManager manager;

	private final LockRequest request;

	private final LockKeys keys;

	private final String owner;

	/** The fencing tokens of this lease, {@code null} until issued. */
	private volatile @Nullable Tokens tokens;

	private final long acquiredAt;

	private final long leaseNanos;

	/** When the lease runs out unless renewed: last acknowledged command's send time plus the lease. */
	private volatile long validUntil;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	private final ReentrantLock issuing = new ReentrantLock();

	/**
	 * Create the lease of an acquisition that Redis granted.
	 * @param fencingToken the token Redis issued, the first of the {@code reservedTokens} it
	 * reserved, or 0 when the acquisition issued none: the first {@link #fencingToken()} asks
	 * Redis for it
	 * @param sentAt when the acquiring command was sent, on {@link System#nanoTime()}
	 * @param leaseNanos the lease Redis set
	 */
	RedisLockLease(RedisLockManager manager, LockRequest request, LockKeys keys, String owner, long fencingToken,
			int reservedTokens, long sentAt, long leaseNanos) {
		this(manager, request, keys, owner, (fencingToken > 0) ? Tokens.reserved(fencingToken, reservedTokens) : null,
				sentAt, leaseNanos, sentAt + leaseNanos);
	}

	private RedisLockLease(RedisLockManager manager, LockRequest request, LockKeys keys, String owner,
			@Nullable Tokens tokens, long acquiredAt, long leaseNanos, long validUntil) {
		this.manager = manager;
		this.request = request;
		this.keys = keys;
		this.owner = owner;
		this.tokens = tokens;
		this.acquiredAt = acquiredAt;
		this.leaseNanos = leaseNanos;
		this.validUntil = validUntil;
	}

	/**
	 * The lease of a lock restored from a token: it keeps the token's fencing token (none to pass
	 * on to waiters) and is valid for the lock's remaining lease.
	 * @param sentAt when the restoring command was sent, on {@link System#nanoTime()}
	 * @param remainingNanos the lease Redis had left for the lock
	 */
	static RedisLockLease restored(RedisLockManager manager, LockRequest request, LockKeys keys, String owner,
			long fencingToken, long sentAt, long leaseNanos, long remainingNanos) {
		return new RedisLockLease(manager, request, keys, owner, Tokens.reserved(fencingToken, 1), sentAt, leaseNanos,
				sentAt + remainingNanos);
	}

	/**
	 * The lease of a waiter of this JVM that takes the lock from this released lease without a
	 * Redis call, or {@code null} when the lock must change hands in Redis: either side has a lease
	 * time of its own, the reserved fencing tokens are used up, or less than half a lease is left,
	 * so that a lease that may soon run out is never passed on.
	 * @param waiter what the waiter asked for
	 */
	@Nullable RedisLockLease passTo(LockRequest waiter) {
		long now = System.nanoTime();
		Tokens issued = this.tokens;
		boolean passable = this.state.get() == State.RELEASED && isRenewed() && waiter.leaseTime() == null
				&& issued != null && issued.hasNext() && this.validUntil - now >= this.leaseNanos / 2;
		return passable ? new RedisLockLease(this.manager, waiter, this.keys, this.owner, issued.next(), now,
				this.leaseNanos, this.validUntil) : null;
	}

	@Override
	public String name() {
		return this.request.name();
	}

	/** Whether the given manager granted this lease. */
	boolean isOf(RedisLockManager manager) {
		return this.manager == manager;
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

	/** The lease Redis sets on each acquisition and renewal, in milliseconds. */
	long leaseMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.leaseNanos);
	}

	long heldNanos() {
		return System.nanoTime() - this.acquiredAt;
	}

	/**
	 * {@inheritDoc}
	 * <p>An acquisition that took a free lock at once issues its token on this first call, in a
	 * script that checks that the lease still holds the lock.
	 * @throws IllegalStateException if the lease was released or lost before a token was issued
	 * @throws LockUnavailableException if Redis did not answer in time
	 */
	@Override
	public long fencingToken() {
		Tokens issued = this.tokens;
		return (issued != null) ? issued.token() : issueToken();
	}

	private long issueToken() {
		// A lock, not a monitor: this waits for Redis, which would pin a virtual thread (JDK 21-23).
		this.issuing.lock();
		try {
			return issueTokenOnce();
		}
		finally {
			this.issuing.unlock();
		}
	}

	private long issueTokenOnce() {
		Tokens issued = this.tokens;
		if (issued == null) {
			// The manager marks the lease lost if Redis says it no longer holds the lock.
			long token = (this.state.get() == State.HELD) ? this.manager.issueToken(this) : 0;
			if (token == 0) {
				throw new IllegalStateException("Lock '" + name() + "' has no fencing token: this lease was "
						+ this.state.get().name().toLowerCase(Locale.ROOT) + " before one was asked for");
			}
			issued = Tokens.reserved(token, LockCommands.RESERVED_TOKENS);
			this.tokens = issued;
		}
		return issued.token();
	}

	/** The fencing token if one was issued, else 0: for reports that must not call Redis. */
	long issuedToken() {
		Tokens issued = this.tokens;
		return (issued != null) ? issued.token() : 0;
	}

	@Override
	public boolean isValid() {
		return this.state.get() == State.HELD && !hasRunOut(System.nanoTime());
	}

	/** Whether the lease has run out by {@code now}: no renewal acknowledged in time. */
	boolean hasRunOut(long now) {
		return now - this.validUntil >= 0;
	}

	/** Notes a renewal that Redis acknowledged, sent at {@code sentAt}. */
	void renewed(long sentAt) {
		extended(sentAt, this.leaseNanos);
	}

	/** Notes an extension to at least {@code nanos} that Redis acknowledged, sent at {@code sentAt}. */
	void extended(long sentAt, long nanos) {
		long until = sentAt + nanos;
		if (until - this.validUntil > 0) {
			this.validUntil = until;
		}
	}

	/** The lease time the lock was taken with, or {@code null} if the watchdog renews it. */
	@Nullable Duration leaseTime() {
		return this.request.leaseTime();
	}

	/** What operators see of this lease. */
	HeldLock describe() {
		long now = System.nanoTime();
		return new HeldLock(name(), group(), issuedToken(), Duration.ofNanos(now - this.acquiredAt),
				Duration.ofNanos(Math.max(this.validUntil - now, 0)), isRenewed());
	}

	@Override
	public long validForMillis() {
		return isRenewed() ? Long.MAX_VALUE
				: Math.max(TimeUnit.NANOSECONDS.toMillis(this.validUntil - System.nanoTime()), 0);
	}

	@Override
	public void release() {
		releaseOwned();
	}

	@Override
	public void extend(Duration leaseTime) {
		this.manager.extend(this, leaseTime);
	}

	@Override
	public LeaseToken handOver() {
		return this.manager.handOver(this);
	}

	/** Leaves this lease to a token: {@code true} if it was held until now. */
	boolean handingOver() {
		return leave(State.HANDED_OVER);
	}

	/** Holds a lease again that was handed over to a token nobody used: {@code true} if it was handed over. */
	boolean takenBack() {
		return this.state.compareAndSet(State.HANDED_OVER, State.HELD);
	}

	/** Whether the lease is still held here, whether or not its time ran out. */
	boolean isHeld() {
		return this.state.get() == State.HELD;
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
		return "LockLease[" + name() + ", token " + issuedToken() + ", " + this.state.get() + "]";
	}

	/**
	 * A lease's fencing token and the last one reserved with it in Redis, for leases passed on.
	 * @param token this lease's token
	 * @param lastReserved the last token reserved with it
	 */
	private record Tokens(long token, long lastReserved) {

		static Tokens reserved(long first, int count) {
			return new Tokens(first, first + count - 1);
		}

		boolean hasNext() {
			return this.token < this.lastReserved;
		}

		Tokens next() {
			return new Tokens(this.token + 1, this.lastReserved);
		}

	}

}
