package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;

/**
 * Changes to a held lease short of its release: extending its lease, handing it over to a token
 * and restoring one, here or in another process. Each is one owner-checked script call; a lease
 * that Redis no longer has for its owner is reported lost, and its holder learns it from a
 * {@link LeaseLostException}.
 */
final class LeaseTransfers {

	/** The manager whose leases these are, which restored leases are released through. */
	private final RedisLockManager manager;

	private final LeaseBookkeeping leases;

	private final LockCommands commands;

	private final String keyPrefix;

	/** The lease of locks taken without a lease time, which the watchdog renews. */
	private final Duration leaseTime;

	/** The instance name at the start of the owner ids of leases handed over. */
	private final String instanceName;

	LeaseTransfers(RedisLockManager manager, LeaseBookkeeping leases, LockCommands commands, String keyPrefix,
			Duration leaseTime, String instanceName) {
		this.manager = manager;
		this.leases = leases;
		this.commands = commands;
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
		if (this.commands.rekey(lease.keys(), lease.owner(), secretOwner) < 0) {
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
		LockKeys keys = LockKeys.of(this.keyPrefix, token.name());
		long sentAt = System.nanoTime();
		long remainingMillis = this.commands.rekey(keys, token.owner(), owner);
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

}
