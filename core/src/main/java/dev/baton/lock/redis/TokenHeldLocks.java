package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockRequest;
import dev.baton.lock.spi.TokenLeases;

/**
 * The locks that delayed tasks hold under a token ({@link TokenLeases}): extended and released
 * owner checked, never tracked or renewed here, since the task holds them, not this instance.
 */
final class TokenHeldLocks {

	private final LockCommands commands;

	private final LockWaiters waiters;

	private final LeaseBookkeeping leases;

	private final String keyPrefix;

	/** The lease of locks taken without a lease time, which the watchdog renews. */
	private final Duration leaseTime;

	TokenHeldLocks(LockCommands commands, LockWaiters waiters, LeaseBookkeeping leases, String keyPrefix,
			Duration leaseTime) {
		this.commands = commands;
		this.waiters = waiters;
		this.leases = leases;
		this.keyPrefix = keyPrefix;
		this.leaseTime = leaseTime;
	}

	boolean extend(LeaseToken token, Duration atLeast) {
		LockRequest.checkExtension(token.name(), atLeast);
		if (this.commands.extend(keys(token), token.owner(), atLeast.toMillis())) {
			return true;
		}
		this.leases.reportLost(token, "it was expired or taken when the task that holds it extended it");
		return false;
	}

	Duration leaseOf(LeaseToken token) {
		return (token.leaseTime() != null) ? token.leaseTime() : this.leaseTime;
	}

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
