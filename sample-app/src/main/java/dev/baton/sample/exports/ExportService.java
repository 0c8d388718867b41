package dev.baton.sample.exports;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
 * another instance: the request takes {@code export:<document>} and schedules the job with it;
 * the task holds the lock while it waits and while the {@code @DelayedTask} handler runs, and
 * releases it when the job is done. Until then a second export of the document is refused.
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
		// The task holds the lock from now until the export has run.
		return this.exports.schedule(new ExportJob(documentId), this.delay, lease);
	}

	/** Documents exported so far, with how many times. */
	public Map<String, Integer> exported() {
		return Map.copyOf(this.exported);
	}

	@DelayedTask(queue = "exports", deadLetter = true)
	void export(ExportJob job, TaskContext task) {
		LockLease lease = task.lease().orElseThrow();
		if (!lease.isValid()) {
			// The lock was lost before the job came (Redis lost it, or the job waited too long):
			// another export may be pending, so this one does nothing.
			logger.warn("Export of " + job.documentId() + " skipped: its lock was lost before the job ran");
			return;
		}
		this.exported.merge(job.documentId(), 1, Integer::sum);
		logger.info("Exported " + job.documentId() + " with fencing token " + lease.fencingToken() + " (task "
				+ task.id() + ")");
	}

}
