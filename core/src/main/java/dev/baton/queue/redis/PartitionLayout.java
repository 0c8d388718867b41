package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.List;

import dev.baton.internal.TimedScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;

/**
 * Keeps a queue's partition count in step with where its tasks are stored. Tasks are placed by id
 * among the partitions, so a different count would look for them in the wrong partition (and
 * never claim those beyond it): a count can change only while the queue holds no task. Every call
 * is bounded by the queue command timeout.
 */
final class PartitionLayout {

	private static final Log logger = LogFactory.getLog(PartitionLayout.class);

	private PartitionLayout() {
	}

	/**
	 * Records the configured count for an empty queue, or checks it against the recorded one.
	 * @throws PartitionCountChangeException if the count differs from the one the queue's tasks
	 * were placed with, or another instance recorded a different one meanwhile
	 */
	static void check(TimedScripts scripts, String prefix, String queue, int configured) {
		QueuePartitions partitions = new QueuePartitions(prefix, queue, configured);
		String what = "check the partitions of queue '" + queue + "'";
		try {
			int stored = recordedCount(scripts, what, partitions, "");
			if (stored == configured) {
				return;
			}
			long tasks = tasks(scripts, what, new QueuePartitions(prefix, queue, stored));
			if (tasks > 0) {
				throw new PartitionCountChangeException(queue, stored, configured, tasks);
			}
			int before = recordedCount(scripts, what, partitions, Integer.toString(stored));
			if (before != stored && before != configured) {
				throw new PartitionCountChangeException(queue, before, configured);
			}
		}
		catch (DataAccessException ex) {
			logger.warn("Could not check the partitions of queue '" + queue + "' against its stored tasks ("
					+ ex.getMessage() + "); it uses " + configured + " partition(s)");
		}
	}

	/**
	 * The count recorded when called; when it is {@code expected}, the configured count is recorded.
	 * @param expected the count read before, or {@code ""} to only read
	 */
	private static int recordedCount(TimedScripts scripts, String what, QueuePartitions partitions,
			String expected) {
		List<?> reply = (List<?>) scripts.eval(what, QueueScript.PARTITION_COUNT.script(),
				List.of(partitions.layoutKey()), expected, Integer.toString(partitions.count()));
		return ((Number) reply.get(0)).intValue();
	}

	/** The tasks stored in all partitions: one stats script each, sent all at once. */
	private static long tasks(TimedScripts scripts, String what, QueuePartitions partitions) {
		List<TimedScripts.Script> calls = new ArrayList<>();
		for (QueueKeys keys : partitions.all()) {
			calls.add(new TimedScripts.Script(QueueScript.STATS.script(), keys.forStats()));
		}
		long tasks = 0;
		for (TimedScripts.Reply reply : scripts.evalAll(what, calls)) {
			List<?> stats = (List<?>) scripts.value(what, reply);
			for (int i = 0; i < 4; i++) {
				tasks += ((Number) stats.get(i)).longValue();
			}
		}
		return tasks;
	}

}
