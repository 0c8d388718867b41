package dev.baton.sample.exports;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * A lock taken in a web request and released by the job that finishes the work, possibly on
 * another instance: the request takes {@code export:<document>}, extends it to cover the wait for
 * the job, hands it over and puts the token in the task; the {@code @DelayedTask} handler restores
 * the lease, exports and releases it. Until then a second export of the document is refused.
 */
@Service
public class ExportService {

	private static final Log logger = LogFactory.getLog(ExportService.class);

	private final LockManager locks;

	private final DelayQueue<ExportJob> exports;

	private final Duration delay;

	private final Map<String, Integer> exported = new ConcurrentHashMap<>();

	ExportService(LockManager locks, DelayQueue<ExportJob> exports, @Value("${app.exports.delay}") Duration delay) {
		this.locks = locks;
		this.exports = exports;
		this.delay = delay;
	}

	/**
	 * Starts an export of the document unless one is pending.
	 * @return the task id
	 * @throws LockNotAcquiredException if an export of the document is pending
	 */
	public String requestExport(String documentId) {
		String lockName = "export:" + documentId;
		LockLease lease = this.locks.tryAcquire(lockName, Duration.ZERO)
			.orElseThrow(() -> new LockNotAcquiredException(lockName, Duration.ZERO));
		try {
			// The lock must outlast the wait for the job and a retry or two.
			lease.extend(this.delay.plus(Duration.ofMinutes(5)));
			LeaseToken token = lease.handOver();
			return this.exports.schedule(new ExportJob(documentId, token.asString()), this.delay);
		}
		catch (RuntimeException ex) {
			lease.release();
			throw ex;
		}
	}

	/** Documents exported so far, with how many times. */
	public Map<String, Integer> exported() {
		return Map.copyOf(this.exported);
	}

	@DelayedTask(queue = "exports", maxAttempts = "1", deadLetter = true)
	void export(ExportJob job, TaskContext task) {
		try (LockLease lease = this.locks.restore(LeaseToken.parse(job.lockToken()))) {
			if (!lease.isValid()) {
				// The lock ran out before the job came (it waited longer than the lock lasts):
				// another export may be pending, so this one does nothing.
				logger.warn("Export of " + job.documentId() + " skipped: its lock was lost before the job ran");
				return;
			}
			this.exported.merge(job.documentId(), 1, Integer::sum);
			logger.info("Exported " + job.documentId() + " with fencing token " + lease.fencingToken() + " (task "
					+ task.id() + ")");
		}
	}

}
