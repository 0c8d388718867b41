package dev.baton.lock.redis;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import dev.baton.internal.BatonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Retries the releases and keeps ({@code lockAtLeastFor}) Redis did not confirm (a timeout, a lost
 * connection, a failover), owner checked, so that a lock is not left held for the rest of its lease; gives up once the lease has
 * run out, when Redis lets the lock go by itself. Runs on a thread of its own, so that a retry
 * that waits for Redis never delays renewals.
 */
final class ReleaseRetries implements AutoCloseable {

	private static final long PERIOD_MILLIS = 500;

	private static final Log logger = LogFactory.getLog(ReleaseRetries.class);

	private final ScheduledExecutorService scheduler;

	ReleaseRetries(BatonThreads threads) {
		// Platform even with virtual threads: a retry must not wait for a carrier thread pinned virtual threads hold.
		this.scheduler = threads.platform().scheduled("baton-lock-release-retry");
	}

	/**
	 * Tries an unconfirmed release again, every {@value #PERIOD_MILLIS} ms, until it is confirmed
	 * or the lease has run out.
	 * @param lease the lease whose release Redis did not confirm
	 * @param release releases it in Redis, owner checked; returns whether it found the lock held
	 */
	void retry(RedisLockLease lease, Predicate<RedisLockLease> release) {
		try {
			this.scheduler.schedule(() -> attempt(lease, release), PERIOD_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the lock expires with its lease
		}
	}

	private void attempt(RedisLockLease lease, Predicate<RedisLockLease> release) {
		if (lease.hasRunOut(System.nanoTime())) {
			return;
		}
		try {
			boolean held = release.test(lease);
			logger.info("Released lock '" + lease.name() + "' on a retry" + (held ? "" : ": it was no longer held"));
		}
		catch (Throwable ex) {
			retry(lease, release);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
