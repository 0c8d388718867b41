package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.redis.LockCommands.Released;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * How a lock manager's leases end by the holder's or the application's wish: a release (handed to
 * a waiter of this JVM, or deleted in Redis), a keep ({@code lockAtLeastFor}) and
 * {@code releaseAll()}. What Redis does not confirm is reported and retried
 * ({@link ReleaseRetries}), so that a lock is neither left held for the rest of its lease nor
 * freed early; a release that finds its lock expired or taken reports the loss.
 */
final class LeaseReleases implements AutoCloseable {

	/** Logged as the lock manager, where operators look for it. */
	private static final Log logger = LogFactory.getLog(RedisLockManager.class);

	private final LeaseBookkeeping leases;

	private final LockCommands commands;

	private final LockWaiters waiters;

	private final LockMetrics metrics;

	private final MetricGroups metricGroups;

	/** Whether the manager is closed: then releases go straight to Redis, past the waiters. */
	private final BooleanSupplier closed;

	private final ReleaseRetries releaseRetries;

	LeaseReleases(BatonThreads threads, LeaseBookkeeping leases, LockCommands commands, LockWaiters waiters,
			LockMetrics metrics, MetricGroups metricGroups, BooleanSupplier closed) {
		this.releaseRetries = new ReleaseRetries(threads);
		this.leases = leases;
		this.commands = commands;
		this.waiters = waiters;
		this.metrics = metrics;
		this.metricGroups = metricGroups;
		this.closed = closed;
	}

	/**
	 * Releases a lease: hands its lock to a waiter of this JVM, or deletes it in Redis.
	 * @return {@code false} if its lock had expired or been taken
	 */
	boolean release(RedisLockLease lease) {
		this.leases.forget(lease);
		Released released;
		try {
			released = this.closed.getAsBoolean() ? this.waiters.releaseInRedis(lease.keys(), lease.owner())
					: this.waiters.release(lease);
		}
		catch (RuntimeException ex) {
			reportIfRunOut(lease);
			// Redis may or may not have deleted the lock: retry rather than leave it held for its lease
			retryUnconfirmed(lease, "Release of lock", ex, this::deletedInRedis);
			throw ex;
		}
		if (released == Released.TAKEN) {
			this.leases.reportLost(lease, "it was taken by another owner before it was released");
			return false;
		}
		if (released == Released.GONE) {
			if (lease.hasRunOut(System.nanoTime())) {
				this.leases.reportLost(lease, "its lease ran out before it was released");
				return false;
			}
			// Not a loss for certain: most often this release ran twice, re-sent after a reconnect.
			logger.debug("Lock '" + lease.name() + "' was already gone when released, within its lease: a release "
					+ "re-sent after a reconnect, or Redis lost or deleted the key");
		}
		return true;
	}

	/** Stops renewing a lease and lets its lock expire after {@code keep}. */
	void keep(RedisLockLease lease, Duration keep) {
		this.leases.forget(lease);
		long keepUntil = System.nanoTime() + keep.toNanos();
		boolean kept;
		try {
			kept = keepOrRelease(lease, keepUntil);
		}
		catch (RuntimeException ex) {
			reportIfRunOut(lease);
			// Unretried, the lock would expire with its lease, which may be shorter than the keep.
			retryUnconfirmed(lease, "Keeping lock", ex, (retried) -> keepOrRelease(retried, keepUntil));
			throw ex;
		}
		finally {
			// Waiters of this JVM may wait for a hand-off: they learn the lock's new expiry from Redis.
			this.waiters.released(lease.keys().channel());
		}
		if (!kept) {
			this.leases.reportLost(lease, "its lease ran out before it was released");
		}
	}

	/** Keeps the lock until {@code keepUntil} (on {@link System#nanoTime()}), or releases it once that passed. */
	private boolean keepOrRelease(RedisLockLease lease, long keepUntil) {
		long keepMillis = TimeUnit.NANOSECONDS.toMillis(keepUntil - System.nanoTime());
		return (keepMillis > 0) ? this.commands.keep(lease.keys(), lease.owner(), keepMillis)
				: deletedInRedis(lease);
	}

	/**
	 * Releases every lease held, each reported as lost to its holder.
	 * @return how many were released
	 */
	int releaseAll() {
		int released = 0;
		for (RedisLockLease lease : this.leases.held().leases()) {
			if (!lease.markLost()) {
				continue;
			}
			this.leases.forget(lease);
			boolean freed;
			try {
				freed = deletedInRedis(lease);
			}
			catch (RuntimeException ex) {
				retryUnconfirmed(lease, "Release of lock", ex, this::deletedInRedis);
				freed = true;
			}
			finally {
				this.waiters.released(lease.keys().channel());
			}
			if (freed) {
				released++;
			}
			this.leases.reportLost(lease, freed ? "releaseAll() released it"
					: "it had run out or been taken before releaseAll() came to it");
		}
		if (released > 0) {
			logger.info("Released all " + released + " lock(s) this instance held (releaseAll)");
		}
		return released;
	}

	/** Deletes the lease's lock in Redis, owner checked: whether it was deleted. */
	private boolean deletedInRedis(RedisLockLease lease) {
		return this.waiters.releaseInRedis(lease.keys(), lease.owner()).deleted();
	}

	/**
	 * Reports a lease that ran out unrenewed before a release or keep that Redis did not answer:
	 * another owner may hold the lock already, and the watchdog, which the release took the lease
	 * from, will not say so.
	 */
	private void reportIfRunOut(RedisLockLease lease) {
		if (lease.hasRunOut(System.nanoTime())) {
			this.leases.reportLost(lease, "its lease ran out unrenewed before it was released (Redis did not answer)");
		}
	}

	/**
	 * Reports a release or keep that Redis did not confirm (warning and metric) and retries it
	 * until it is confirmed or the lease has run out, so that the lock is neither left held nor
	 * freed early.
	 * @param what the call, for the log: "Release of lock" or "Keeping lock"
	 */
	private void retryUnconfirmed(RedisLockLease lease, String what, RuntimeException ex,
			Predicate<RedisLockLease> retry) {
		logger.warn(what + " '" + lease.name() + "' was not confirmed by Redis (" + ex.getMessage()
				+ "); retrying until it is or the lease runs out");
		this.metrics.releaseUnconfirmed(this.metricGroups.tag(lease.group()));
		this.releaseRetries.retry(lease, retry);
	}

	/** Stops retrying: the locks of releases still unconfirmed expire with their lease. */
	@Override
	public void close() {
		this.releaseRetries.close();
	}

}
