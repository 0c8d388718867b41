package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;

/**
 * Changes to a held lease short of its release: extending its lease, handing it over to a token
 * and restoring one, here or in another process; and what a delayed task does with the lock it
 * holds under a token ({@link dev.baton.lock.spi.TokenLeases}): extend, release and give it back
 * to the lease that handed it over, never tracked or renewed here. Each is one owner-checked
 * script call; a lease that Redis no longer has for its owner is reported lost, and its holder
 * learns it from a {@link LeaseLostException} (a token's holder from the answer).
 */
final class LeaseTransfers {

	/** The manager whose leases these are, which restored leases are released through. */
	private final RedisLockManager manager;

	private final LeaseBookkeeping leases;

	private final LockCommands commands;

	/** Wakes this JVM's waiters when a task's lock is released. */
	private final LockWaiters waiters;

	private final String keyPrefix;

	/** The lease of locks taken without a lease time, which the watchdog renews. */
	private final Duration leaseTime;

	/** The instance name at the start of the owner ids of leases handed over. */
	private final String instanceName;

	LeaseTransfers(RedisLockManager manager, LeaseBookkeeping leases, LockCommands commands, LockWaiters waiters,
			String keyPrefix, Duration leaseTime, String instanceName) {
		this.manager = manager;
		this.leases = leases;
		this.commands = commands;
		this.waiters = waiters;
		this.keyPrefix = keyPrefix;
		this.leaseTime = leaseTime;
		this.instanceName = instanceName;
	}

	/**
	 * Makes a lease's lock last at least {@code leaseTime} from now, owner checked.
	 * @throws LeaseLostException if the lease no longer holds its lock, which is then reported
	 */
	void extend(RedisLockLease lease, Duration leaseTime) {
		LockRequest.checkExtension(lease.name(), leaseTime);
		requireHeld(lease, "extended");
		long sentAt = System.nanoTime();
		if (!this.commands.extend(lease.keys(), lease.owner(), leaseTime.toMillis())) {
			this.leases.lost(lease, "it was expired or taken when it was extended");
			throw new LeaseLostException("Lock '" + lease.name() + "' was not extended: its lease was lost (it ran out, "
					+ "or the lock was deleted or taken)");
		}
		lease.extended(sentAt, leaseTime.toNanos());
	}

	/**
	 * Gives a lease's lock a new owner id with an unguessable secret and returns it as a token;
	 * the lease stops being renewed here first, so that no renewal races the change of owner.
	 */
	LeaseToken handOver(RedisLockLease lease) {
		requireHeld(lease, "handed over");
		long fencingToken;
		try {
			fencingToken = lease.fencingToken();
		}
		catch (IllegalStateException ex) {
			// Redis said, when asked for the token, that the lease no longer holds its lock.
			throw new LeaseLostException("Lock '" + lease.name() + "' was not handed over: " + ex.getMessage());
		}
		if (!lease.handingOver()) {
			throw new IllegalStateException("Lock '" + lease.name() + "' was released or lost before it was handed over");
		}
		this.leases.forget(lease);
		String secretOwner = LeaseToken.newOwner(this.instanceName);
		long rekeyed;
		try {
			rekeyed = this.commands.rekey(lease.keys(), lease.owner(), secretOwner);
		}
		catch (LockUnavailableException ex) {
			// Nobody will get the token.
			this.commands.releaseEitherQuietly(lease.keys(), lease.owner(), secretOwner);
			throw ex;
		}
		if (rekeyed < 0) {
			this.leases.reportLost(lease, "it was expired or taken when it was handed over");
			throw new LeaseLostException("Lock '" + lease.name() + "' was not handed over: its lease was lost (it ran "
					+ "out, or the lock was deleted or taken)");
		}
		return new LeaseToken(lease.name(), secretOwner, fencingToken, lease.leaseTime());
	}

	private static void requireHeld(RedisLockLease lease, String what) {
		if (!lease.isHeld()) {
			throw new LeaseLostException("Lock '" + lease.name() + "' cannot be " + what
					+ ": this lease was released, lost or handed over");
		}
	}

	/**
	 * Takes over the lock of a token under {@code owner}, with the token's fencing token, for the
	 * lock's remaining lease; a lock that ran out, was released or has another owner (the token
	 * may have been restored before) gives a lease that is never valid.
	 * @param owner the new owner id of the lock
	 * @return the lease, held and tracked, or an {@link UnrestoredLease}
	 */
	LockLease restore(LeaseToken token, String owner) {
		LockKeys keys = keys(token);
		long sentAt = System.nanoTime();
		long remainingMillis;
		try {
			remainingMillis = this.commands.rekey(keys, token.owner(), owner);
		}
		catch (LockUnavailableException ex) {
			// The change may have run without its reply: give the lock back to the token, so that a
			// retry of the restore finds it, instead of leaving it held for an owner nobody knows.
			this.commands.rekeyQuietly(keys, owner, token.owner());
			throw ex;
		}
		if (remainingMillis < 0) {
			return new UnrestoredLease(token);
		}
		LockRequest request = LockRequest.of(token.name()).leaseTime(token.leaseTime()).build();
		long leaseNanos = ((token.leaseTime() != null) ? token.leaseTime() : this.leaseTime).toNanos();
		RedisLockLease lease = RedisLockLease.restored(this.manager, request, keys, owner, token.fencingToken(), sentAt,
				leaseNanos, TimeUnit.MILLISECONDS.toNanos(remainingMillis));
		this.leases.held().add(lease);
		return lease;
	}

	/** Makes the lock of a task's token last at least {@code atLeast} from now, owner checked; reports it lost if not. */
	boolean extend(LeaseToken token, Duration atLeast) {
		LockRequest.checkExtension(token.name(), atLeast);
		if (this.commands.extend(keys(token), token.owner(), atLeast.toMillis())) {
			return true;
		}
		this.leases.reportLost(token, "it was expired or taken when the task that holds it extended it");
		return false;
	}

	/** The lease a token's holder keeps the lock for: its lease time, or the watchdog lease. */
	Duration leaseOf(LeaseToken token) {
		return (token.leaseTime() != null) ? token.leaseTime() : this.leaseTime;
	}

	/** Releases the lock of a task's token if the token still holds it. */
	boolean release(LeaseToken token) {
		return this.waiters.releaseInRedis(keys(token), token.owner()).deleted();
	}

	/** Gives the lock back to the lease that handed it over to the token, owner checked. */
	boolean takeBack(RedisLockLease lease, LeaseToken token) {
		if (!lease.name().equals(token.name())) {
			throw new IllegalArgumentException("Lease token of lock '" + token.name()
					+ "' was not handed over by the lease of lock '" + lease.name() + "'");
		}
		if (this.commands.rekey(lease.keys(), token.owner(), lease.owner()) < 0) {
			this.leases.reportLost(token, "it was expired or taken before it was given back to its lease");
			return false;
		}
		if (lease.takenBack()) {
			this.leases.held().add(lease);
		}
		return true;
	}

	private LockKeys keys(LeaseToken token) {
		return LockKeys.of(this.keyPrefix, token.name());
	}

}
