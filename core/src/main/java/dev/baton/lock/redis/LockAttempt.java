package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.WaitingLine.HandOff;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a lock, attempt after attempt, remembering when to try again: the first in
 * one plain command, the waiters' through the acquire script, and a hand-off from a holder.
 */
final class LockAttempt implements WaitingLine.Waiter<RedisLockLease> {

	/** Logged as the lock manager, where operators look for it. */
	private static final Log logger = LogFactory.getLog(RedisLockManager.class);

	private final LockRequest request;

	private final LockKeys keys;

	private final long waitNanos;

	private final RedisLockManager manager;

	private final LockCommands commands;

	private final HeldLeases held;

	private final Duration defaultLeaseTime;

	/**
	 * One owner id for every command of this acquisition, so that a command run twice (sent
	 * again after a reconnect) or an earlier attempt whose reply was lost is recognised as its own.
	 */
	private final String owner;

	private long retryInMillis;

	/**
	 * Whether the first attempt's SET was refused and no attempt since looked at the owner: that
	 * SET may have taken the lock and been refused when it ran again after a reconnect.
	 */
	private boolean refusalUnchecked;

	/** When the first attempt's SET was sent: the start of the lease it may have taken. */
	private long firstSentAt;

	LockAttempt(RedisLockManager manager, LockCommands commands, HeldLeases held, Duration defaultLeaseTime,
			String owner, LockRequest request, LockKeys keys, long waitNanos) {
		this.manager = manager;
		this.commands = commands;
		this.held = held;
		this.defaultLeaseTime = defaultLeaseTime;
		this.owner = owner;
		this.request = request;
		this.keys = keys;
		this.waitNanos = waitNanos;
	}

	/**
	 * The first attempt: takes a free lock in one plain command, leaving its fencing token until
	 * it is asked for. A lock that is taken is left to the waiters' attempts, which mark it
	 * awaited and learn when its lease runs out.
	 */
	@Nullable RedisLockLease first() {
		if (!this.commands.takesWithoutScript()) {
			return attempt();
		}
		long leaseMillis = leaseMillis();
		long sentAt = System.nanoTime();
		if (acquiring(() -> this.commands.take(this.keys, this.owner, leaseMillis))) {
			return granted(0, sentAt, leaseMillis);
		}
		this.refusalUnchecked = true;
		this.firstSentAt = sentAt;
		return (this.waitNanos == 0) ? takenUnawares() : null;
	}

	/**
	 * Once this acquisition stops trying without the lock: the lease if a refused first SET had
	 * taken it after all (it ran twice, sent again after a reconnect). The waiters' attempts
	 * recognise their owner, but only the first in line asks Redis, and another thread of this
	 * JVM may have been first until the wait ran out.
	 */
	@Nullable RedisLockLease takenUnawares() {
		if (!this.refusalUnchecked) {
			return null;
		}
		this.refusalUnchecked = false;
		boolean taken = acquiring(() -> this.commands.isHeldBy(this.keys, this.owner));
		return taken ? granted(0, this.firstSentAt, leaseMillis()) : null;
	}

	/**
	 * Once this acquisition ends with an exception: releases quietly what a refused first SET may
	 * have taken, so that it is not held for a lease with nobody to release it.
	 */
	void abandon() {
		if (this.refusalUnchecked) {
			this.refusalUnchecked = false;
			this.commands.releaseQuietly(this.keys, this.owner);
		}
	}

	@Override
	public @Nullable RedisLockLease attempt() {
		// The acquire script recognises this owner: a lock taken by the first SET is granted now.
		this.refusalUnchecked = false;
		long leaseMillis = leaseMillis();
		long waitingMillis = (this.waitNanos > 0) ? WaitingLine.MAX_WAIT_STEP_MILLIS * 2 : 0;
		long sentAt = System.nanoTime();
		long result = acquiring(() -> this.commands.acquire(this.keys, this.owner, leaseMillis,
				LockAcquisitions.fenceMillis(leaseMillis), waitingMillis));
		if (result <= 0) {
			this.retryInMillis = -result;
			return null;
		}
		return granted(result, sentAt, leaseMillis);
	}

	/** Sends an acquisition, releasing quietly what it may have taken if no reply came. */
	private <T> T acquiring(Supplier<T> call) {
		try {
			return call.get();
		}
		catch (LockUnavailableException ex) {
			// The lock may have been taken for us without a reply reaching us.
			this.commands.releaseQuietly(this.keys, this.owner);
			throw ex;
		}
	}

	@Override
	public HandOff<RedisLockLease> takeOver(RedisLockLease holder) {
		RedisLockLease passed = holder.passTo(this.request);
		if (passed != null) {
			return HandOff.to(tracked(passed));
		}
		long leaseMillis = leaseMillis();
		long sentAt = System.nanoTime();
		long token;
		try {
			token = this.commands.handOff(this.keys, holder.owner(), this.owner, leaseMillis,
					LockAcquisitions.fenceMillis(leaseMillis));
		}
		catch (LockUnavailableException ex) {
			this.commands.releaseEitherQuietly(this.keys, holder.owner(), this.owner);
			throw ex;
		}
		if (token == LockCommands.UNREPLICATED) {
			undoUnreplicatedHandOff();
			return HandOff.refused();
		}
		return (token > 0) ? HandOff.to(granted(token, sentAt, leaseMillis)) : HandOff.lost();
	}

	/**
	 * Deletes a hand-off to this waiter that fewer replicas than required have, before the waiter
	 * asks Redis again: nobody may start holding a lock that a failover could give away. Its next
	 * attempt acquires with acknowledgement, under the same owner id.
	 */
	private void undoUnreplicatedHandOff() {
		try {
			this.commands.release(this.keys, this.owner);
		}
		catch (LockUnavailableException ex) {
			// Still held for this owner: the waiter's next attempt finds it and waits for the replicas.
			logger.warn("Could not undo the unreplicated hand-off of lock '" + this.keys.name() + "': "
					+ ex.getMessage());
		}
	}

	private long leaseMillis() {
		Duration requested = this.request.leaseTime();
		return Math.max(((requested != null) ? requested : this.defaultLeaseTime).toMillis(), 1);
	}

	/** The lease of an acquisition that Redis granted to this attempt's owner. */
	private RedisLockLease granted(long fencingToken, long sentAt, long leaseMillis) {
		return tracked(new RedisLockLease(this.manager, this.request, this.keys, this.owner, fencingToken,
				LockCommands.RESERVED_TOKENS, sentAt, TimeUnit.MILLISECONDS.toNanos(leaseMillis)));
	}

	private RedisLockLease tracked(RedisLockLease lease) {
		this.held.add(lease);
		return lease;
	}

	@Override
	public long retryInMillis() {
		return this.retryInMillis;
	}

}
