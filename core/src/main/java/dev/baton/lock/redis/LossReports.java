package dev.baton.lock.redis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockLostEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells of lost leases: a warning, the {@code baton.lock.lost} counter and a
 * {@link LockLostEvent} for the application's listener, which runs on a thread of its own so
 * that a slow or failing listener cannot hold up renewals. Reporting never throws into a holder,
 * also once closed.
 */
final class LossReports implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockManager.class);

	private final Consumer<LockLostEvent> listener;

	private final LockMetrics metrics;

	private final MetricGroups metricGroups;

	private final ExecutorService events;

	LossReports(BatonThreads threads, Consumer<LockLostEvent> listener, LockMetrics metrics,
			MetricGroups metricGroups) {
		this.events = threads.singleThread("baton-lock-events");
		this.listener = listener;
		this.metrics = metrics;
		this.metricGroups = metricGroups;
	}

	/**
	 * Reports a lease lost.
	 * @param how how it was lost, completing "Lost lock 'x': ..."
	 */
	void lost(RedisLockLease lease, String how) {
		lost(lease.name(), lease.group(), lease.issuedToken(), how);
	}

	/**
	 * Reports a lock lost that was held under a token rather than a lease of this instance.
	 * @param fencingToken the fencing token of the lost acquisition, 0 if none was issued
	 * @param how how it was lost, completing "Lost lock 'x': ..."
	 */
	void lost(String name, String group, long fencingToken, String how) {
		logger.warn("Lost lock '" + name + "' ("
				+ ((fencingToken != 0) ? "fencing token " + fencingToken : "no fencing token issued") + "): " + how);
		this.metrics.lost(this.metricGroups.tag(group));
		LockLostEvent event = new LockLostEvent(name, group, fencingToken);
		Runnable notification = () -> {
			try {
				this.listener.accept(event);
			}
			catch (Throwable ex) {
				logger.error("Lock-lost listener failed for " + event, ex);
			}
		};
		try {
			this.events.execute(notification);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the holder still learns of its loss, on its own thread.
			notification.run();
		}
	}

	@Override
	public void close() {
		this.events.shutdown();
	}

}
