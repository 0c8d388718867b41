package dev.baton.autoconfigure.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.autoconfigure.redis.BatonReconnectAutoConfiguration;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.DelayedTaskListenerStatus;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.fail;

/**
 * The {@code baton} health contributor under a seeded random schedule of network faults between
 * the application and Redis: cuts, black holes and latency above the command timeouts, each of
 * 0.5 to 6 s, with healed gaps of 2 to 6 s, while a lock is held (so that the watchdog renews) and
 * a {@code @DelayedTask} listener gets tasks now and then (so that it claims and acknowledges).
 * Both indicators are sampled every 50 ms, and each must:
 * <ol>
 * <li>turn DOWN within its detection bound of a fault's start and stay DOWN until the heal, for
 * every fault longer than that bound (docs/locks.md and docs/observability.md, "Health");</li>
 * <li>be UP again within its recovery bound of the heal;</li>
 * <li>never be DOWN while the link has been healthy for longer than that recovery bound.</li>
 * </ol>
 * Each bound's derivation is next to it. Two fixed seeds run in the build;
 * {@code -Dbaton.health.seeds=1,2,3} (or {@code random:10}) runs others. Every seed is printed, and
 * a violation names its seed, the fault timeline and the samples around it.
 */
@RedisTest
class HealthUnderFaultsTests {

	private static final String SEEDS_PROPERTY = "baton.health.seeds";

	/**
	 * The build's seed, a short one (20 s) with a black hole of 4.2 s and a cut of 5.2 s, longer
	 * than both detection bounds; one seed keeps the build within its time. Seed 54 (22 s) adds
	 * latency of 4.6 s: {@code -Dbaton.health.seeds=21,54} runs both.
	 */
	private static final long[] FIXED_SEEDS = { 21 };

	private static final Duration LOCK_COMMAND_TIMEOUT = Duration.ofMillis(300);

	/** The watchdog renews every third of it (500 ms), each round bounded by min(300, 500 / 2) ms: LockWatchdog. */
	private static final Duration LEASE_TIME = Duration.ofMillis(1500);

	private static final Duration WATCHDOG_PERIOD = LEASE_TIME.dividedBy(3);

	private static final Duration RENEWAL_BOUND = Duration.ofMillis(250);

	private static final Duration QUEUE_COMMAND_TIMEOUT = Duration.ofMillis(300);

	/**
	 * Below a second, so that failed claims are retried after it ("short poll",
	 * DelayedTaskListenerContainer.shortPoll) and a container is not progressing after 10 of them,
	 * 2 s (DelayedTaskListenerStatus.STALLED_POLLS; docs/observability.md "Health" says "10
	 * retries of a failed claim").
	 */
	private static final Duration MAX_IDLE_POLL = Duration.ofMillis(200);

	private static final Duration STALL_WINDOW = MAX_IDLE_POLL.multipliedBy(DelayedTaskListenerStatus.STALLED_POLLS);

	/**
	 * Longest pause of a failing acknowledgement's retries (Acknowledger.MAX_RETRY_PAUSE_MILLIS)
	 * and of a failing visibility extension's (a tenth of a third of the 30 s visibility timeout,
	 * VisibilityExtender): either keeps the queue DOWN until its next try succeeds.
	 */
	private static final Duration SETTLEMENT_RETRY_PAUSE = Duration.ofSeconds(1);

	/**
	 * Lettuce's longest wait between reconnect attempts ({@code baton.redis.max-reconnect-delay},
	 * 1 s by default; lower here to keep the test short): after a cut the reconnect comes up to
	 * this long after the heal.
	 */
	private static final Duration RECONNECT_DELAY_CAP = Duration.ofMillis(500);

	private static final Duration SAMPLE_PERIOD = Duration.ofMillis(50);

	/** Two cores shared with other builds: scheduling delays, GC, a redis-server and the proxy's threads. */
	private static final Duration SLACK = Duration.ofSeconds(1);

	/**
	 * Locks: a health call in flight when the fault starts may still succeed (it ends within the
	 * command timeout), the next starts a sample period later and fails within the command
	 * timeout, as docs/locks.md "Health" promises ("DOWN while Redis does not answer within the
	 * command timeout").
	 */
	private static final Duration LOCKS_DETECTION = LOCK_COMMAND_TIMEOUT.plus(SAMPLE_PERIOD)
		.plus(LOCK_COMMAND_TIMEOUT)
		.plus(SLACK);

	/**
	 * Queues: the claim loop sends its next claim within the idle poll (it waits no longer,
	 * subscribed to wake-ups or not), that claim fails within the queue command timeout and marks
	 * claims failing, and the container stops progressing once they failed for the stall window
	 * (docs/observability.md "Health"); the next sample then sees it. The docs count the window from
	 * the first failed claim; what comes before it is the code's.
	 */
	private static final Duration QUEUES_DETECTION = MAX_IDLE_POLL.plus(QUEUE_COMMAND_TIMEOUT)
		.plus(STALL_WINDOW)
		.plus(SAMPLE_PERIOD)
		.plus(SLACK);

	/** A fault's latency, one way: above both command timeouts, so that every command fails. */
	private static final int MIN_LATENCY_MILLIS = 400;

	private static final int MAX_LATENCY_MILLIS = 800;

	/** How long after the last heal the samples go on: past every recovery bound. */
	private static final Duration TAIL = Duration.ofSeconds(4);

	static List<Long> seeds() {
		String seeds = System.getProperty(SEEDS_PROPERTY, "").trim();
		if (seeds.isEmpty()) {
			return Arrays.stream(FIXED_SEEDS).boxed().toList();
		}
		if (seeds.startsWith("random:")) {
			return LongStream.range(0, Long.parseLong(seeds.substring("random:".length())))
				.map((n) -> ThreadLocalRandom.current().nextLong())
				.boxed()
				.toList();
		}
		return Arrays.stream(seeds.split(",")).map(String::trim).map(Long::parseLong).toList();
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void healthIsDownWhileTheLinkFailsAndUpSoonAfterItHeals(long seed, RedisServer server) {
		Plan plan = Plan.of(seed);
		System.out.println("HealthUnderFaultsTests seed " + seed + " (replay: -D" + SEEDS_PROPERTY + "=" + seed
				+ "): " + plan.describe());
		try (RedisProxy proxy = RedisProxy.to(server)) {
			application(proxy).run((context) -> {
				Run run = new Run(seed, plan, context, proxy);
				List<String> violations = run.execute();
				System.out.println("HealthUnderFaultsTests seed " + seed + ": " + run.summary());
				if (!violations.isEmpty()) {
					fail(run.describe(violations));
				}
			});
		}
	}

	private static ApplicationContextRunner application(RedisProxy proxy) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class,
					BatonHealthContributorAutoConfiguration.class, BatonReconnectAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + proxy.host(), "spring.data.redis.port=" + proxy.port(),
					"baton.lock.command-timeout=" + LOCK_COMMAND_TIMEOUT.toMillis() + "ms",
					"baton.lock.lease-time=" + LEASE_TIME.toMillis() + "ms",
					"baton.queue.command-timeout=" + QUEUE_COMMAND_TIMEOUT.toMillis() + "ms",
					"baton.queue.max-idle-poll=" + MAX_IDLE_POLL.toMillis() + "ms",
					"baton.redis.max-reconnect-delay=" + RECONNECT_DELAY_CAP.toMillis() + "ms")
			.withBean(Reminders.class);
	}

	/**
	 * Locks: the link answers again after the reconnect (or, after latency, once the chunk under
	 * way is through), the watchdog's next round comes within its period and clears the renewal
	 * failure within its bound, and the next sample sees it. Not stated by the docs: the code's.
	 */
	private static Duration locksRecovery(Fault fault) {
		return linkBack(fault).plus(WATCHDOG_PERIOD).plus(RENEWAL_BOUND).plus(SAMPLE_PERIOD).plus(SLACK);
	}

	/**
	 * Queues: once the link is back, a try under way may still fail within the command timeout;
	 * the next comes within the short poll (a claim) or the retry pause of a failing
	 * acknowledgement or extension, a second, the longer since the short poll is at most a second;
	 * it succeeds, and the next sample sees it. Not stated by the docs: the code's.
	 */
	private static Duration queuesRecovery(Fault fault) {
		return linkBack(fault).plus(QUEUE_COMMAND_TIMEOUT)
			.plus(SETTLEMENT_RETRY_PAUSE)
			.plus(SAMPLE_PERIOD)
			.plus(SLACK);
	}

	/**
	 * How long after the heal the link carries commands again: a reconnect after a cut or a black
	 * hole (healing closes the connections that lost bytes), the one-way latency of a chunk still
	 * delayed after latency.
	 */
	private static Duration linkBack(Fault fault) {
		return (fault.planned().kind() == Kind.LATENCY) ? Duration.ofMillis(fault.planned().latencyMillis())
				: RECONNECT_DELAY_CAP;
	}

	enum Kind {

		CUT, BLACK_HOLE, LATENCY

	}

	/** A fault of the plan, in milliseconds from the start of the fault phase. */
	record PlannedFault(Kind kind, long atMillis, long durationMillis, long latencyMillis) {

		@Override
		public String toString() {
			String what = (this.kind == Kind.LATENCY) ? "LATENCY " + this.latencyMillis + "ms" : this.kind.name();
			return String.format(Locale.ROOT, "%s at %.3fs for %.3fs", what, this.atMillis / 1000.0,
					this.durationMillis / 1000.0);
		}

	}

	/** The faults of one seed: healed gaps of 2 to 6 s and faults of 0.5 to 6 s over 20 to 30 s. */
	record Plan(long phaseMillis, List<PlannedFault> faults) {

		static Plan of(long seed) {
			Random random = new Random(seed);
			long phase = 20_000 + random.nextInt(10_001);
			List<PlannedFault> faults = new ArrayList<>();
			long at = 0;
			while (true) {
				long gap = 2_000 + random.nextInt(4_001);
				long duration = 500 + random.nextInt(5_501);
				Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
				long latency = (kind == Kind.LATENCY)
						? MIN_LATENCY_MILLIS + random.nextInt(MAX_LATENCY_MILLIS - MIN_LATENCY_MILLIS + 1) : 0;
				if (at + gap + duration > phase) {
					return new Plan(phase, faults);
				}
				faults.add(new PlannedFault(kind, at + gap, duration, latency));
				at += gap + duration;
			}
		}

		String describe() {
			return this.faults.stream().map(PlannedFault::toString).collect(Collectors.joining(", ", "[", "]"))
					+ " over " + this.phaseMillis / 1000.0 + "s";
		}

	}

	/**
	 * A fault as it ran, in nanoseconds from the run's origin: the link may be faulty
	 * from {@code applying} to {@code healed}, and is so for certain from {@code applied} to
	 * {@code healing}.
	 */
	record Fault(PlannedFault planned, long applying, long applied, long healing, long healed) {

		@Override
		public String toString() {
			return this.planned.kind() + ((this.planned.kind() == Kind.LATENCY) ? " " + this.planned.latencyMillis() + "ms" : "")
					+ " " + seconds(this.applied) + "-" + seconds(this.healing);
		}

	}

	/** One health call: when it started and returned, in nanoseconds from the run's origin. */
	record Sample(long start, long end, Status status, String detail) {

	}

	/** One seed's run: the workload, the samplers, the faults, then the checks. */
	private static final class Run {

		private final long seed;

		private final Plan plan;

		private final RedisProxy proxy;

		private final HealthIndicator locks;

		private final HealthIndicator queues;

		private final LockManager lockManager;

		private final DelayQueue<String> reminders;

		private final Reminders handled;

		private final List<Sample> locksSamples = new CopyOnWriteArrayList<>();

		private final List<Sample> queuesSamples = new CopyOnWriteArrayList<>();

		private final List<Fault> faults = new ArrayList<>();

		private final AtomicInteger scheduled = new AtomicInteger();

		private final AtomicInteger acquisitions = new AtomicInteger();

		private final List<String> checked = new ArrayList<>();

		private volatile boolean running = true;

		/** The origin of every time of the run, as {@link System#nanoTime()}. */
		private final long origin = System.nanoTime();

		/** When the fault phase started, from the origin: the plan's times count from here. */
		private long phaseStart;

		private long end;

		@SuppressWarnings("unchecked")
		Run(long seed, Plan plan, AssertableApplicationContext context, RedisProxy proxy) {
			this.seed = seed;
			this.plan = plan;
			this.proxy = proxy;
			CompositeHealthContributor baton = context.getBean("batonHealthContributor",
					CompositeHealthContributor.class);
			this.locks = (HealthIndicator) baton.getContributor("locks");
			this.queues = (HealthIndicator) baton.getContributor("queues");
			this.lockManager = context.getBean(LockManager.class);
			this.reminders = context.getBean("baton.queue.reminders", DelayQueue.class);
			this.handled = context.getBean(Reminders.class);
		}

		List<String> execute() throws InterruptedException {
			List<Thread> threads = List.of(daemon("hold-lock", this::holdLock),
					daemon("schedule-tasks", this::scheduleTasks), daemon("sample-locks", () -> sample(this.locks, this.locksSamples)),
					daemon("sample-queues", () -> sample(this.queues, this.queuesSamples)));
			threads.forEach(Thread::start);
			try {
				List<String> notUp = awaitUp(Duration.ofSeconds(15));
				if (!notUp.isEmpty()) {
					return notUp;
				}
				// The fault phase starts with both UP
				this.phaseStart = now();
				runFaults();
				this.end = Math.max(now() + TAIL.toNanos(), inPhase(this.plan.phaseMillis()));
				sleepUntil(this.end);
			}
			finally {
				this.running = false;
				this.proxy.heal();
				for (Thread thread : threads) {
					thread.join(5_000);
				}
			}
			List<String> violations = new ArrayList<>();
			violations.addAll(check("locks", this.locksSamples, LOCKS_DETECTION, HealthUnderFaultsTests::locksRecovery));
			violations.addAll(check("queues", this.queuesSamples, QUEUES_DETECTION,
					HealthUnderFaultsTests::queuesRecovery));
			return violations;
		}

		/** Both indicators UP before any fault: the application started and the listener claimed. */
		private List<String> awaitUp(Duration within) throws InterruptedException {
			long deadline = System.nanoTime() + within.toNanos();
			while (System.nanoTime() < deadline) {
				if (lastIsUp(this.locksSamples) && lastIsUp(this.queuesSamples) && this.acquisitions.get() > 0) {
					return List.of();
				}
				Thread.sleep(SAMPLE_PERIOD.toMillis());
			}
			return List.of("not UP within " + within + " of the start, before any fault");
		}

		private static boolean lastIsUp(List<Sample> samples) {
			return !samples.isEmpty() && samples.get(samples.size() - 1).status().equals(Status.UP);
		}

		private void runFaults() throws InterruptedException {
			for (PlannedFault planned : this.plan.faults()) {
				sleepUntil(inPhase(planned.atMillis()));
				long applying = now();
				apply(planned);
				long applied = now();
				sleepUntil(inPhase(planned.atMillis() + planned.durationMillis()));
				long healing = now();
				this.proxy.heal();
				this.faults.add(new Fault(planned, applying, applied, healing, now()));
			}
		}

		private void apply(PlannedFault fault) {
			switch (fault.kind()) {
				case CUT -> this.proxy.cut();
				case BLACK_HOLE -> this.proxy.blackHole();
				case LATENCY -> this.proxy.latency(Duration.ofMillis(fault.latencyMillis()));
			}
		}

		/** Keeps one lock held, so that the watchdog renews: takes it again whenever it was lost. */
		private void holdLock() {
			LockLease lease = null;
			while (this.running) {
				if (lease == null || !lease.isValid()) {
					try {
						lease = this.lockManager.tryAcquire("health-faults-" + this.seed, Duration.ZERO).orElse(null);
						if (lease != null) {
							this.acquisitions.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						// Redis unreachable: try again
					}
				}
				pause(100);
			}
			if (lease != null && lease.isValid()) {
				lease.release();
			}
		}

		/** A task due now or within 300 ms every 0.25 to 0.6 s, so that the listener claims and acknowledges. */
		private void scheduleTasks() {
			Random random = new Random(this.seed);
			while (this.running) {
				try {
					this.reminders.schedule("reminder", Duration.ofMillis(random.nextInt(300)));
					this.scheduled.incrementAndGet();
				}
				catch (RuntimeException ex) {
					// Redis unreachable: the next one
				}
				pause(250 + random.nextInt(350));
			}
		}

		/** Calls the indicator every sample period, or as soon as the last call returned. */
		private void sample(HealthIndicator indicator, List<Sample> samples) {
			while (this.running) {
				long start = now();
				Health health = indicator.health();
				long end = now();
				samples.add(new Sample(start, end, health.getStatus(), detail(health)));
				long next = start + SAMPLE_PERIOD.toNanos();
				if (next > end) {
					pause(TimeUnit.NANOSECONDS.toMillis(next - end));
				}
			}
		}

		private static String detail(Health health) {
			if (health.getStatus().equals(Status.UP)) {
				return "";
			}
			String details = String.valueOf(health.getDetails());
			return (details.length() > 160) ? details.substring(0, 160) + "..." : details;
		}

		/** The three invariants for one indicator's samples; each violation as a message. */
		private List<String> check(String name, List<Sample> samples, Duration detection,
				Function<Fault, Duration> recovery) {
			List<String> violations = new ArrayList<>();
			List<String> timings = new ArrayList<>();
			int detected = 0;
			int recovered = 0;
			// Both were UP when the phase started: the link counts as healthy for long before it
			long healthySince = this.phaseStart;
			Duration healthyBound = Duration.ZERO;
			for (int i = 0; i <= this.faults.size(); i++) {
				Fault fault = (i < this.faults.size()) ? this.faults.get(i) : null;
				long healthyUntil = (fault != null) ? fault.applying() : this.end;
				// (2) and (3): UP within the recovery bound of the heal, and from then on
				long upFrom = healthySince + healthyBound.toNanos();
				if (healthyUntil - upFrom > SAMPLE_PERIOD.toNanos()) {
					recovered++;
					if (i > 0 && first(samples, healthySince, upFrom, Status.UP) == null) {
						violations.add(violation(name, "(2) not UP within " + healthyBound.toMillis() + " ms of the heal at "
								+ seconds(healthySince), samples, upFrom));
					}
					for (Sample sample : between(samples, upFrom, healthyUntil)) {
						if (!sample.status().equals(Status.UP)) {
							violations.add(violation(name, "(3) " + sample.status() + " at " + seconds(sample.end())
									+ ", while the link had been healthy for " + millis(sample.end() - healthySince)
									+ " ms (bound " + healthyBound.toMillis() + " ms)", samples, sample.end()));
							break;
						}
					}
				}
				if (fault == null) {
					break;
				}
				// (1): DOWN within the detection bound of the start, and until the heal
				long downFrom = fault.applied() + detection.toNanos();
				if (fault.healing() - downFrom > 0) {
					detected++;
					if (first(samples, fault.applied(), downFrom, Status.DOWN) == null) {
						violations.add(violation(name, "(1) not DOWN within " + detection.toMillis() + " ms of " + fault,
								samples, downFrom));
					}
					for (Sample sample : between(samples, downFrom, fault.healing())) {
						if (!sample.status().equals(Status.DOWN)) {
							violations.add(violation(name, "(1) " + sample.status() + " at " + seconds(sample.end())
									+ " during " + fault + ", past the detection bound of " + detection.toMillis() + " ms",
									samples, sample.end()));
							break;
						}
					}
				}
				healthySince = fault.healed();
				healthyBound = recovery.apply(fault);
				timings.add(timing(samples, fault, (i + 1 < this.faults.size()) ? this.faults.get(i + 1).applying() : this.end));
			}
			this.checked.add(String.format(Locale.ROOT,
					"%s: %d samples, DOWN checked on %d/%d faults (bound %d ms), UP on %d/%d healthy gaps, %s", name,
					samples.size(), detected, this.faults.size(), detection.toMillis(), recovered,
					this.faults.size() + 1, timings));
			return violations;
		}

		/** How long the indicator took to turn DOWN, and UP again after the heal (-1: it did not). */
		private static String timing(List<Sample> samples, Fault fault, long nextFault) {
			Sample down = first(samples, fault.applied(), nextFault, Status.DOWN);
			Sample up = first(samples, fault.healed(), nextFault, Status.UP);
			return "DOWN after " + ((down != null) ? millis(down.end() - fault.applied()) : -1) + " ms, UP "
					+ ((up != null) ? millis(up.end() - fault.healed()) : -1) + " ms after the heal";
		}

		private static Sample first(List<Sample> samples, long from, long to, Status status) {
			return between(samples, from, to).stream()
				.filter((sample) -> sample.status().equals(status))
				.findFirst()
				.orElse(null);
		}

		/** The samples that returned from {@code from} to {@code to}. */
		private static List<Sample> between(List<Sample> samples, long from, long to) {
			return samples.stream().filter((sample) -> sample.end() >= from && sample.end() <= to).toList();
		}

		private String violation(String indicator, String what, List<Sample> samples, long around) {
			return "seed " + this.seed + ", " + indicator + ": " + what + "\n  samples around "
					+ seconds(around) + ":\n" + runs(between(samples, around - 2_000_000_000L, around + 1_000_000_000L));
		}

		/** Consecutive samples of one status as one line: times, status, count, first detail. */
		private static String runs(List<Sample> samples) {
			StringBuilder runs = new StringBuilder();
			int i = 0;
			while (i < samples.size()) {
				int j = i;
				while (j + 1 < samples.size() && samples.get(j + 1).status().equals(samples.get(i).status())) {
					j++;
				}
				Sample first = samples.get(i);
				runs.append(String.format(Locale.ROOT, "    %s..%s %s x%d %s%n", seconds(first.start()),
						seconds(samples.get(j).end()), first.status(), j - i + 1, first.detail()));
				i = j + 1;
			}
			return runs.toString();
		}

		String summary() {
			return "phase from " + seconds(this.phaseStart) + ", faults " + this.faults + "; "
					+ String.join("; ", this.checked) + "; lock taken "
					+ this.acquisitions.get() + " times, " + this.scheduled.get() + " schedule calls returned, "
					+ this.handled.count.get() + " handled";
		}

		String describe(List<String> violations) {
			return "seed " + this.seed + " (replay: -D" + SEEDS_PROPERTY + "=" + this.seed + "), faults "
					+ this.faults + ":\n" + violations.stream().limit(6).collect(Collectors.joining("\n"))
					+ ((violations.size() > 6) ? "\n(" + (violations.size() - 6) + " more)" : "");
		}

		/** Nanoseconds since the origin. */
		private long now() {
			return System.nanoTime() - this.origin;
		}

		/** A time of the plan, from the origin. */
		private long inPhase(long millis) {
			return this.phaseStart + TimeUnit.MILLISECONDS.toNanos(millis);
		}

		private void sleepUntil(long at) throws InterruptedException {
			long wait = at - now();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
		}

		private static void pause(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private static Thread daemon(String name, Runnable task) {
			Thread thread = new Thread(task, "health-faults-" + name);
			thread.setDaemon(true);
			return thread;
		}

	}

	private static String seconds(long nanos) {
		return String.format(Locale.ROOT, "%.3fs", nanos / 1e9);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	static class Reminders {

		final AtomicInteger count = new AtomicInteger();

		@DelayedTask(queue = "reminders")
		void remind(String text) {
			this.count.incrementAndGet();
		}

	}

}
