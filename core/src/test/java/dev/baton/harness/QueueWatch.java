package dev.baton.harness;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Watches the queue's partitions from outside Baton, every {@value #SAMPLE_MILLIS} ms: the
 * in-flight deliveries whose visibility deadline is less than {@link Visibility#nearMillis()} ahead on the
 * Redis clock, or already past, and the oldest task waiting due and unclaimed.
 * <p>By the docs the container keeps a held delivery's deadline at least two thirds of the
 * visibility timeout ahead while Redis answers, and one failed extension costs at most another
 * third. {@link VisibilityChecks} then asks whether a handler was running the task then, and
 * whether its instance had been out of reach. Unlike a duplicate, which needs another consumer to
 * claim the task in the lapse, a deadline run this close shows whenever it happens.
 * <p>A task due for a while that nobody claimed is what {@link ProgressChecks} holds against the
 * instances that could have taken it.
 */
final class QueueWatch {

	private static final long SAMPLE_MILLIS = 20;

	/** How long a task waits due before the watch notes it. */
	private static final long WAITING_NOTED_MILLIS = 1000;

	/**
	 * Redis time, epoch ms, the in-flight deliveries whose deadline is within ARGV[1] ms of it
	 * (KEYS[1]), and the first due task (KEYS[2]) with its due time.
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static final RedisScript<List> SAMPLE = RedisScript.of("""
			local time = redis.call('TIME')
			local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
			return { now, redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now + tonumber(ARGV[1]), 'WITHSCORES'),
				redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES') }
			""", List.class);

	private final StringRedisTemplate redis;

	private final int partitions;

	/** How close to its deadline a held delivery is noted. */
	private final long nearMillis;

	private final Timeline timeline;

	/** Each deadline once, by {@code id@deadline}, as first seen near. */
	private final Map<String, NearDeadline> near = new ConcurrentHashMap<>();

	/** Samples in which a partition's first due task had waited {@link #WAITING_NOTED_MILLIS} or more. */
	private final Queue<Waiting> waiting = new ConcurrentLinkedQueue<>();

	private volatile boolean watching = true;

	/**
	 * @param partitions the harness queue's partitions, whose in-flight sorted sets (scored by
	 * visibility deadline) it reads
	 */
	QueueWatch(StringRedisTemplate redis, int partitions, Visibility visibility, Timeline timeline) {
		this.redis = redis;
		this.nearMillis = visibility.nearMillis();
		this.partitions = partitions;
		this.timeline = timeline;
	}

	/** A thread per partition: one whose primary does not answer holds up no other's samples. */
	void start() {
		for (int partition = 0; partition < this.partitions; partition++) {
			int sampled = partition;
			Thread sampler = new Thread(() -> {
				while (this.watching) {
					sample(sampled);
					Pause.millis(SAMPLE_MILLIS);
				}
			}, "harness-queue-watch-" + partition);
			sampler.setDaemon(true);
			sampler.start();
		}
	}

	void stop() {
		this.watching = false;
	}

	private void sample(int partition) {
		List<?> reply;
		try {
			reply = this.redis.execute(SAMPLE,
					List.of(PartitionNodes.inFlightKey(partition), PartitionNodes.dueKey(partition)),
					Long.toString(this.nearMillis));
		}
		catch (RuntimeException ex) {
			// Redis killed, paused or failing over: the next sample looks again.
			return;
		}
		long redisNow = (Long) reply.get(0);
		// Seen when the answer came: a paused Redis runs the script at the end of a long round trip.
		long seenAt = this.timeline.now();
		List<?> deliveries = (List<?>) reply.get(1);
		for (int i = 0; i + 1 < deliveries.size(); i += 2) {
			String id = (String) deliveries.get(i);
			long deadline = Long.parseLong((String) deliveries.get(i + 1));
			this.near.computeIfAbsent(id + "@" + deadline, (key) -> {
				NearDeadline seen = new NearDeadline(id, seenAt + (deadline - redisNow), seenAt);
				this.timeline.record(id, "visibility deadline " + seen.deadlineMillis() + " ms seen "
						+ (seen.deadlineMillis() - seen.seenMillis()) + " ms ahead at " + seen.seenMillis() + " ms");
				return seen;
			});
		}
		List<?> firstDue = (List<?>) reply.get(2);
		if (!firstDue.isEmpty()) {
			long waited = redisNow - Long.parseLong((String) firstDue.get(1));
			if (waited >= WAITING_NOTED_MILLIS) {
				// A due set's member is the task's 16-character order, then its id.
				String id = ((String) firstDue.get(0)).substring(16);
				this.waiting.add(new Waiting(partition, id, seenAt - waited, seenAt));
			}
		}
	}

	List<Waiting> waiting() {
		return List.copyOf(this.waiting);
	}

	List<NearDeadline> nearDeadlines() {
		return List.copyOf(this.near.values());
	}

	/**
	 * A partition's first due task, unclaimed, as a sample saw it.
	 * @param id the task's id
	 * @param dueMillis when it fell due, ms from the run's start
	 * @param seenMillis when the sample saw it still waiting, ms from the run's start
	 */
	record Waiting(int partition, String id, long dueMillis, long seenMillis) {

	}

	/**
	 * A held delivery first seen less than {@link Visibility#nearMillis()} before its deadline, or after it.
	 * @param deadlineMillis the deadline, ms from the run's start
	 * @param seenMillis when it was first seen so, ms from the run's start
	 */
	record NearDeadline(String id, long deadlineMillis, long seenMillis) {

		boolean lapsed() {
			return this.seenMillis >= this.deadlineMillis;
		}

	}

}
