package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;

import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.Table;
import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What a Sentinel failover does to Baton's locks and tasks while they are in use: a primary, a
 * replica and three sentinels ({@code down-after-milliseconds} 1000), one Baton application with
 * a {@code @DelayedTask} handler (4 consumers) and a producer scheduling 1,000 tasks/s for 10 s,
 * and 4 threads taking and releasing 20 lock names; 3 s in, the fault. Settings are the
 * defaults of Baton, Spring Boot and Lettuce.
 */
public final class FailoverBenchmarks {

	private static final int TASKS = 10_000;

	private static final Duration FAULT_AT = Duration.ofSeconds(3);

	private static final int LOCK_NAMES = 20;

	/**
	 * How long the application keeps running after the fault to count duplicates: the sentinels
	 * demote an old primary within about 11 s, and a delivery acknowledged only on it comes back
	 * on the new one after the visibility timeout (30 s).
	 */
	private static final Duration OBSERVED_AFTER_FAULT = Duration.ofSeconds(45);

	/** A fault to inject. */
	public enum Fault {

		/** {@code SENTINEL FAILOVER}: the primary steps down in order. */
		SENTINEL_FAILOVER,

		/**
		 * {@code SENTINEL FAILOVER} under the load of the review that found the old primary taking
		 * writes for 10 s (issues 23 and 24): the tasks scheduled at once, due over 5 s, and 8
		 * threads on 4 lock names; Baton follows the switch (its default).
		 */
		SENTINEL_FAILOVER_REVIEW_LOAD,

		/** The same with {@code baton.sentinel.follow-switches=false}: as before Baton followed switches. */
		SENTINEL_FAILOVER_REVIEW_LOAD_UNFOLLOWED,

		/** {@code kill -9} of the primary. */
		PRIMARY_KILLED,

		/**
		 * {@code kill -9} of a primary of a 3-primary cluster with a replica each, Spring Boot's
		 * Lettuce defaults (topology refreshed only when Lettuce hears of a change); the queue in 12
		 * partitions over every primary.
		 */
		CLUSTER_PRIMARY_KILLED,

		/**
		 * The same with the settings the guide recommends: Lettuce's adaptive topology refresh, a
		 * periodic refresh every second and a command timeout of 2 s.
		 */
		CLUSTER_PRIMARY_KILLED_TUNED

	}

	private FailoverBenchmarks() {
	}

	/**
	 * Runs every fault once.
	 * @param only a part of the names of the faults to run, lower case; empty for all
	 * @return the result table
	 */
	public static Table run(String only) {
		Table table = new Table("Failover behind Sentinel and in a cluster: " + TASKS + " tasks at 1,000/s, 4 threads on "
				+ LOCK_NAMES + " lock names (the review's load: due over 5 s, 8 threads on 4 names), fault "
				+ FAULT_AT.toSeconds() + " s in",
				List.of("missing", "duplicates", "schedule errors", "lock calls", "lock errors", "errors for ms",
						"longest a name was unavailable ms", "all tasks handled after s"));
		for (Fault fault : Fault.values()) {
			if (!fault.name().toLowerCase(Locale.ROOT).contains(only.toLowerCase(Locale.ROOT))) {
				continue;
			}
			System.out.println("  failover " + fault + "...");
			Metrics metrics = run(fault);
			System.out.println("  failover " + fault + ": " + metrics);
			table.add(fault.name().toLowerCase(Locale.ROOT).replace('_', ' '), metrics, "");
		}
		return table;
	}

	private static Metrics run(Fault fault) {
		if (fault == Fault.CLUSTER_PRIMARY_KILLED || fault == Fault.CLUSTER_PRIMARY_KILLED_TUNED) {
			return runOnCluster(fault == Fault.CLUSTER_PRIMARY_KILLED_TUNED);
		}
		boolean reviewLoad = fault != Fault.SENTINEL_FAILOVER && fault != Fault.PRIMARY_KILLED;
		boolean follow = fault != Fault.SENTINEL_FAILOVER_REVIEW_LOAD_UNFOLLOWED;
		Load load = reviewLoad ? new Load(8, 4, true) : new Load(4, LOCK_NAMES, false);
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			LocalRedisServer primary = sentinel.dataNodes().get(0);
			TaskTracker tracker = new TaskTracker(TASKS);
			String[] settings = { "spring.data.redis.sentinel.master=" + sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelNodes()),
					"baton.sentinel.follow-switches=" + follow };
			QueueClient client = BatonQueueClient.withSettings(settings)
				.connect("redis://" + primary.host() + ":" + primary.port(), "bench", 4, tracker);
			LettuceConnectionFactory lockConnection = new LettuceConnectionFactory(
					new RedisSentinelConfiguration(sentinel.masterName(), Set.copyOf(sentinel.sentinelNodes())));
			lockConnection.afterPropertiesSet();
			lockConnection.start();
			RedisLockManager locks = RedisLockManager.builder(lockConnection).build();
			PrimarySwitchWatch watch = follow ? PrimarySwitchWatch.of(lockConnection).orElseThrow() : null;
			if (watch != null) {
				locks.followPrimarySwitches(watch);
				watch.start();
			}
			LocalRedisServer replica = sentinel.dataNodes().get(1);
			try (PromotionWrites writes = new PromotionWrites(primary, replica, FAULT_AT.plusSeconds(12))) {
				Metrics metrics = measure(client, locks, tracker, load,
						() -> inject(fault == Fault.PRIMARY_KILLED, sentinel, primary));
				return writes.addTo(metrics);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
			finally {
				if (watch != null) {
					watch.close();
				}
				locks.close();
				client.close();
				lockConnection.destroy();
			}
		}
	}

	/**
	 * The load around the fault.
	 * @param lockThreads threads taking lock names
	 * @param lockNames how many names they take
	 * @param dueOverFiveSeconds whether the tasks are scheduled at once, due over 5 s, instead of
	 * scheduled at 1,000/s, due at once
	 */
	private record Load(int lockThreads, int lockNames, boolean dueOverFiveSeconds) {

	}

	private static Metrics runOnCluster(boolean tuned) {
		try (LocalRedisCluster cluster = RedisServers.startCluster(3, 1)) {
			TaskTracker tracker = new TaskTracker(TASKS);
			List<String> settings = new ArrayList<>(List.of(
					"spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()),
					"baton.queue.queues." + BatonQueueClient.QUEUE + ".partitions=12"));
			if (tuned) {
				settings.add("spring.data.redis.lettuce.cluster.refresh.adaptive=true");
				settings.add("spring.data.redis.lettuce.cluster.refresh.period=1s");
				settings.add("spring.data.redis.timeout=2s");
			}
			BatonQueueClient client = (BatonQueueClient) BatonQueueClient.withSettings(settings.toArray(String[]::new))
				.connect("redis://" + cluster.nodes().get(0), BatonQueueClient.QUEUE, 4, tracker);
			try {
				// The first primary holds 4 of the queue's 12 partitions, and some of the lock names.
				return measure(client, client.bean(RedisLockManager.class), tracker, new Load(4, LOCK_NAMES, false),
						() -> cluster.primaries().get(0).kill());
			}
			finally {
				client.close();
			}
		}
	}

	/** Runs the load with the fault 3 s in, and measures what it did to tasks and locks. */
	private static Metrics measure(QueueClient client, RedisLockManager locks, TaskTracker tracker, Load load,
			Runnable fault) {
		LockLoad lockLoad = new LockLoad(locks, load);
		long start = System.nanoTime();
		try {
			lockLoad.start();
			int scheduleErrors = produce(client, fault, start, load.dueOverFiveSeconds());
			boolean all = tracker.awaitAll(System.nanoTime() + TimeUnit.SECONDS.toNanos(90));
			double handledAfter = ((all ? tracker.lastHandledNanos() : System.nanoTime()) - start) / 1e9;
			lockLoad.stop();
			// Duplicates come later than the last first run: once the application talks to the new
			// primary, which still holds as due what the old one ran, and after a visibility timeout
			// for what was acknowledged only on the old one.
			LockSupport.parkNanos(start + FAULT_AT.plus(OBSERVED_AFTER_FAULT).toNanos() - System.nanoTime());
			return new Metrics().put("missing", tracker.missing())
				.put("duplicates", tracker.duplicates())
				.put("schedule errors", scheduleErrors)
				.put("lock calls", lockLoad.calls.get())
				.put("lock errors", lockLoad.errors.get())
				.put("errors for ms", lockLoad.errorWindowMillis())
				.put("longest a name was unavailable ms", lockLoad.longestGapMillis())
				.put("all tasks handled after s", handledAfter);
		}
		finally {
			lockLoad.stop();
		}
	}

	private static void inject(boolean kill, LocalRedisSentinel sentinel, LocalRedisServer primary) {
		if (kill) {
			primary.kill();
		}
		else {
			sentinel.failover();
		}
	}

	/**
	 * Schedules the tasks, each retried until stored, with the fault {@link #FAULT_AT} after
	 * {@code start}; returns how many calls failed.
	 * @param dueOverFiveSeconds whether to schedule them at once, due over 5 s, instead of at
	 * 1,000/s, due at once
	 */
	private static int produce(QueueClient client, Runnable fault, long start, boolean dueOverFiveSeconds) {
		Thread faultThread = new Thread(() -> {
			LockSupport.parkNanos(start + FAULT_AT.toNanos() - System.nanoTime());
			fault.run();
		}, "failover-fault");
		faultThread.start();
		int errors = 0;
		for (int id = 0; id < TASKS; id++) {
			long dueAt = start + TimeUnit.MICROSECONDS.toNanos(id * (dueOverFiveSeconds ? 500L : 1000L));
			if (!dueOverFiveSeconds) {
				// Parked, not spinning: on two cores a spinning producer would slow Redis and the consumers
				LockSupport.parkNanos(dueAt - System.nanoTime());
			}
			while (true) {
				try {
					client.schedule(String.valueOf(id), TaskTracker.payload(id, TaskTracker.wallMicros()),
							Duration.ofNanos(Math.max(dueAt - System.nanoTime(), 0)));
					break;
				}
				catch (RuntimeException ex) {
					if (ex.getMessage() != null && ex.getMessage().contains("already scheduled")) {
						// An earlier attempt was stored after all
						break;
					}
					errors++;
					sleep(50);
				}
			}
		}
		return errors;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Threads that take and release lock names all the time, noting failures and gaps. */
	private static final class LockLoad {

		private final RedisLockManager locks;

		private final Load load;

		private final ExecutorService threads;

		private final AtomicBoolean running = new AtomicBoolean(true);

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger errors = new AtomicInteger();

		private final AtomicLong firstError = new AtomicLong();

		private final LongAccumulator lastError = new LongAccumulator(Math::max, 0);

		private final Map<String, Long> lastAcquired = new ConcurrentHashMap<>();

		private final LongAccumulator longestGap = new LongAccumulator(Math::max, 0);

		LockLoad(RedisLockManager locks, Load load) {
			this.locks = locks;
			this.load = load;
			this.threads = Executors.newFixedThreadPool(load.lockThreads());
		}

		void start() {
			for (int t = 0; t < this.load.lockThreads(); t++) {
				int seed = t;
				this.threads.execute(() -> {
					for (int i = seed; this.running.get(); i++) {
						take("name-" + (i % this.load.lockNames()));
					}
				});
			}
		}

		private void take(String name) {
			this.calls.incrementAndGet();
			try {
				try (LockLease lease = this.locks.tryAcquire(name, Duration.ofMillis(100)).orElse(null)) {
					if (lease != null) {
						long now = System.nanoTime();
						Long previous = this.lastAcquired.put(name, now);
						if (previous != null) {
							this.longestGap.accumulate(now - previous);
						}
					}
				}
			}
			catch (RuntimeException ex) {
				long now = System.nanoTime();
				this.errors.incrementAndGet();
				this.firstError.compareAndSet(0, now);
				this.lastError.accumulate(now);
				sleep(20);
			}
		}

		void stop() {
			this.running.set(false);
			this.threads.shutdown();
			try {
				this.threads.awaitTermination(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		double errorWindowMillis() {
			long first = this.firstError.get();
			return (first == 0) ? 0 : (this.lastError.get() - first) / 1e6;
		}

		double longestGapMillis() {
			return this.longestGap.get() / 1e6;
		}

	}

}
