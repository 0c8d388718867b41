package dev.baton.lock;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Retries the releases Redis did not confirm (a timeout, a lost connection, a failover), owner
 * checked, so that a lock is not left held for the rest of its lease; gives up once the lease has
 * run out, when Redis lets the lock go by itself. Runs on a thread of its own, so that a retry
 * that waits for Redis never delays renewals.
 */
final class ReleaseRetries implements AutoCloseable {

	private static final long PERIOD_MILLIS = 500;

	private static final Log logger = LogFactory.getLog(ReleaseRetries.class);

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "baton-lock-release-retry");
		thread.setDaemon(true);
		return thread;
	});

	/** Deletes the lock if the owner holds it; returns whether it was deleted. */
	private final BiPredicate<LockKeys, String> release;

	ReleaseRetries(BiPredicate<LockKeys, String> release) {
		this.release = release;
	}

	void retry(RedisLockLease lease) {
		try {
			this.scheduler.schedule(() -> attempt(lease), PERIOD_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the lock expires with its lease
		}
	}

	private void attempt(RedisLockLease lease) {
		if (lease.hasRunOut(System.nanoTime())) {
			return;
		}
		try {
			boolean deleted = this.release.test(lease.keys(), lease.owner());
			logger.info("Released lock '" + lease.name() + "' on a retry" + (deleted ? "" : ": it was no longer held"));
		}
		catch (Throwable ex) {
			retry(lease);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
