package dev.baton.harness;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Watches the queue's in-flight set from outside Baton, every {@value #SAMPLE_MILLIS} ms, for
 * deliveries whose visibility deadline is less than {@link #NEAR_MILLIS} ahead on the Redis clock,
 * or already past: by the docs the container keeps a held delivery's deadline at least two thirds
 * of the visibility timeout ahead while Redis answers, and one failed extension costs at most
 * another third. {@link VisibilityChecks} then asks whether a handler was running the task then,
 * and whether its instance had been out of reach. Unlike a duplicate, which needs another consumer
 * to claim the task in the lapse, a deadline run this close shows whenever it happens.
 */
final class VisibilityWatch {

	private static final long SAMPLE_MILLIS = 20;

	/**
	 * How close to its deadline a held delivery is noted: a fifth of the visibility timeout, below
	 * the least a single failed extension leaves (a third, less the retry's tenth of a third).
	 */
	static final long NEAR_MILLIS = HarnessInstance.VISIBILITY_TIMEOUT.toMillis() / 5;

	/** Redis time, epoch ms, and the in-flight deliveries whose deadline is within ARGV[1] ms of it. */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static final RedisScript<List> NEAR = RedisScript.of("""
			local time = redis.call('TIME')
			local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
			return { now, redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now + tonumber(ARGV[1]), 'WITHSCORES') }
			""", List.class);

	private final StringRedisTemplate redis;

	private final String inFlightKey;

	private final Timeline timeline;

	/** Each deadline once, by {@code id@deadline}, as first seen near. */
	private final Map<String, NearDeadline> near = new ConcurrentHashMap<>();

	private volatile boolean watching = true;

	/**
	 * @param inFlightKey the queue's in-flight sorted set, scored by visibility deadline
	 */
	VisibilityWatch(StringRedisTemplate redis, String inFlightKey, Timeline timeline) {
		this.redis = redis;
		this.inFlightKey = inFlightKey;
		this.timeline = timeline;
	}

	void start() {
		Thread sampler = new Thread(() -> {
			while (this.watching) {
				sample();
				Pause.millis(SAMPLE_MILLIS);
			}
		}, "harness-visibility");
		sampler.setDaemon(true);
		sampler.start();
	}

	void stop() {
		this.watching = false;
	}

	private void sample() {
		List<?> reply;
		try {
			reply = this.redis.execute(NEAR, List.of(this.inFlightKey), Long.toString(NEAR_MILLIS));
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
	}

	List<NearDeadline> nearDeadlines() {
		return List.copyOf(this.near.values());
	}

	/**
	 * A held delivery first seen less than {@link #NEAR_MILLIS} before its deadline, or after it.
	 * @param deadlineMillis the deadline, ms from the run's start
	 * @param seenMillis when it was first seen so, ms from the run's start
	 */
	record NearDeadline(String id, long deadlineMillis, long seenMillis) {

		boolean lapsed() {
			return this.seenMillis >= this.deadlineMillis;
		}

	}

}
