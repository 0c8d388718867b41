package dev.baton.queue.redis;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Keeps a queue's partition count in step with where its tasks are stored. Tasks are placed by id
 * among the partitions, so a different count would look for them in the wrong partition (and
 * never claim those beyond it): a count can change only while the queue holds no task.
 */
final class PartitionLayout {

	private static final Log logger = LogFactory.getLog(PartitionLayout.class);

	private PartitionLayout() {
	}

	/**
	 * Records the configured count for an empty queue, or checks it against the recorded one.
	 * @throws PartitionCountChangeException if the count differs from the one the queue's tasks
	 * were placed with
	 */
	static void check(StringRedisTemplate redis, String prefix, String queue, int configured) {
		QueuePartitions partitions = new QueuePartitions(prefix, queue, configured);
		try {
			String recorded = redis.opsForValue().get(partitions.layoutKey());
			int stored = (recorded != null) ? Integer.parseInt(recorded) : 1;
			if (stored == configured) {
				return;
			}
			long tasks = tasks(redis, new QueuePartitions(prefix, queue, stored));
			if (tasks > 0) {
				throw new PartitionCountChangeException(queue, stored, configured, tasks);
			}
			if (configured == 1) {
				redis.delete(partitions.layoutKey());
			}
			else {
				redis.opsForValue().set(partitions.layoutKey(), Integer.toString(configured));
			}
		}
		catch (DataAccessException ex) {
			logger.warn("Could not check the partitions of queue '" + queue + "' against its stored tasks ("
					+ ex.getMessage() + "); it uses " + configured + " partition(s)");
		}
	}

	private static long tasks(StringRedisTemplate redis, QueuePartitions partitions) {
		long tasks = 0;
		for (QueueKeys keys : partitions.all()) {
			List<Object> stats = QueueScript.STATS.run(redis, keys.forStats(), List.of());
			for (int i = 0; i < 4; i++) {
				tasks += (Long) stats.get(i);
			}
		}
		return tasks;
	}

}
