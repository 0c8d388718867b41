package dev.baton.lock.redis;

import java.util.function.Consumer;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockRequest;

/**
 * The books of a lock manager's leases, which acquiring, releasing and transferring them share:
 * which leases are held ({@link HeldLeases}), and what follows when one stops being held here.
 * A lease forgotten has its held time recorded; a lease lost is also released in Redis as far as
 * it may still be its own, this JVM's waiters for it are woken, and the loss is reported
 * ({@link LossReports}).
 */
final class LeaseBookkeeping implements AutoCloseable {

	private final HeldLeases held = new HeldLeases();

	private final LockCommands commands;

	private final LockWaiters waiters;

	private final LockMetrics metrics;

	private final MetricGroups metricGroups;

	private final LossReports lossReports;

	LeaseBookkeeping(BatonThreads threads, LockCommands commands, LockWaiters waiters, LockMetrics metrics,
			MetricGroups metricGroups, Consumer<LockLostEvent> lockLostListener) {
		this.commands = commands;
		this.waiters = waiters;
		this.metrics = metrics;
		this.metricGroups = metricGroups;
		this.lossReports = new LossReports(threads, lockLostListener, metrics, metricGroups);
		this.metrics.activeLocks(this.held::size);
	}

	/** The leases held, and the acquisitions under way that may add one. */
	HeldLeases held() {
		return this.held;
	}

	/** Stops tracking a lease: released, lost, or run out. */
	void forget(RedisLockLease lease) {
		if (this.held.remove(lease)) {
			this.metrics.held(this.metricGroups.tag(lease.group()), lease.heldNanos());
		}
	}

	/** Marks a lease lost that the watchdog found expired, taken, or unrenewed within its lease time. */
	void lost(RedisLockLease lease) {
		lost(lease, lease.hasRunOut(System.nanoTime()) ? "no renewal reached Redis within its lease time"
				: "the watchdog found it expired, deleted (a flush, a forceUnlock) or taken by another owner");
	}

	/**
	 * Marks a lease lost, unless it was no longer held, and reports it.
	 * @param how how it was lost, completing "Lost lock 'x': ..."
	 */
	void lost(RedisLockLease lease, String how) {
		if (lease.markLost()) {
			forget(lease);
			// Renewals stopped: release what may still be ours in Redis rather than leave it for a lease.
			this.commands.releaseQuietly(lease.keys(), lease.owner());
			this.waiters.released(lease.keys().channel());
			reportLost(lease, how);
		}
	}

	/**
	 * Reports a lease lost that is no longer tracked.
	 * @param how how it was lost, completing "Lost lock 'x': ..."
	 */
	void reportLost(RedisLockLease lease, String how) {
		this.lossReports.lost(lease, how);
	}

	/**
	 * Reports the lock of a token lost.
	 * @param how how it was lost, completing "Lost lock 'x': ..."
	 */
	void reportLost(LeaseToken token, String how) {
		this.lossReports.lost(token.name(), LockRequest.defaultGroup(token.name()), token.fencingToken(), how);
	}

	/** Stops the thread that tells the listener of losses; later losses are told on the holder's thread. */
	@Override
	public void close() {
		this.lossReports.close();
	}

}
