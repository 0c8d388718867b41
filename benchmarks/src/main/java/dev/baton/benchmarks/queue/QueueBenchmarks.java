package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import dev.baton.benchmarks.BenchmarkSettings;
import dev.baton.benchmarks.support.CommandCensus;
import dev.baton.benchmarks.support.CpuClock;
import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.RedisProbe.Snapshot;
import dev.baton.benchmarks.support.Samples;
import dev.baton.benchmarks.support.Table;

/**
 * The delayed-queue scenarios of issue 4, each run for every selected implementation on a new
 * queue (and a new client) per run, with the server emptied in between.
 */
public final class QueueBenchmarks {

	private static final Duration FAR_AWAY = Duration.ofHours(1);

	/** A drain that takes longer varies little between runs, and repeating it would take minutes. */
	private static final int LONG_DRAIN_SECONDS = 60;

	private static final Duration IDLE_SETTLE = Duration.ofSeconds(2);

	/** The pause after a drain, before Redis's counters are read (its last acknowledgements land). */
	private static final Duration DRAIN_SETTLE = Duration.ofSeconds(1);

	/** The pause after the lateness run's last task, in which duplicates would show. */
	private static final Duration LATENESS_SETTLE = Duration.ofMillis(500);

	/** The least time a drain gives the storing before the tasks fall due. */
	private static final Duration LEAST_FILL = Duration.ofSeconds(1);

	/** Tasks stored per second at least, in the drain's warm-up run (which measures the rate). */
	private static final double LEAST_FILL_RATE = 2000;

	private static final TaskHandler IGNORE = (payload) -> {
	};

	private final BenchmarkSettings settings;

	private final String redisUrl;

	private final RedisProbe probe;

	private final AtomicInteger queueIds = new AtomicInteger();

	private final Table enqueue;

	private final Table drain;

	private final Table spreadDrain;

	private final Table lateness;

	private final Table idle;

	public QueueBenchmarks(BenchmarkSettings settings, String redisUrl, RedisProbe probe) {
		this.settings = settings;
		this.redisUrl = redisUrl;
		this.probe = probe;
		this.enqueue = new Table("Queue, enqueue: " + settings.tasks() + " tasks from one producer thread",
				List.of("single tasks/s", "round trips/task single", "Redis cmds/task single",
						"client CPU µs/task single", "batch tasks/s", "Redis cmds/task batch"));
		this.drain = new Table("Queue, drain: " + settings.tasks() + " tasks due at one instant, " + settings.consumers()
				+ " consumer threads", List.of("tasks/s", "drain s", "missing", "duplicates", "round trips/task",
						"Redis cmds/task", "Redis CPU µs/task", "client CPU µs/task"));
		this.spreadDrain = new Table("Queue, drain, spread: " + settings.tasks()
				+ " tasks, each due at a random time between its enqueue and the end of the enqueue, "
				+ settings.consumers() + " consumer threads", List.of("tasks/s", "drain s", "missing", "duplicates",
						"Redis cmds/task", "Redis CPU µs/task", "client CPU µs/task"));
		this.lateness = new Table("Queue, lateness: " + settings.latenessRate() + " tasks/s, delays 100-"
				+ settings.latenessMaxDelay().toMillis() + " ms, "
				+ settings.latenessDuration().toSeconds() + " s", List.of("tasks", "p50 ms", "p99 ms", "max ms",
						"missing", "duplicates"));
		this.idle = new Table("Queue, idle: empty queue, " + settings.consumers() + " consumer threads running",
				List.of("Redis cmds/s"));
	}

	/**
	 * Runs every scenario for every selected implementation.
	 * @param implementations the implementations to consider
	 * @return the result tables
	 */
	public List<Table> run(List<QueueImplementation> implementations) {
		for (QueueImplementation implementation : implementations) {
			if (this.settings.selects(implementation.name())) {
				guarded(this.enqueue, implementation, () -> enqueue(implementation));
				guarded(this.drain, implementation, () -> drain(implementation));
				guarded(this.spreadDrain, implementation, () -> spreadDrain(implementation));
				guarded(this.lateness, implementation, () -> lateness(implementation));
				guarded(this.idle, implementation, () -> idle(implementation));
			}
		}
		return List.of(this.enqueue, this.drain, this.spreadDrain, this.lateness, this.idle);
	}

	private void guarded(Table table, QueueImplementation implementation, Runnable scenario) {
		try {
			scenario.run();
		}
		catch (RuntimeException ex) {
			System.out.println("  " + implementation.name() + " FAILED: " + ex);
			ex.printStackTrace(System.out);
			table.add(implementation.name(), new Metrics(), "failed: " + ex.getMessage());
		}
	}

	/**
	 * A warm-up run of {@link #warmupTasks()} tasks (unless {@code --warmup=0ms}), then the
	 * measured runs, each logged.
	 */
	private List<Metrics> measuredRuns(QueueImplementation implementation, String scenario,
			IntFunction<Metrics> run) {
		if (!this.settings.skipsWarmup()) {
			run.apply(warmupTasks());
		}
		List<Metrics> runs = new ArrayList<>();
		for (int i = 0; i < this.settings.runs(); i++) {
			Metrics metrics = run.apply(this.settings.tasks());
			log(implementation, scenario, i, metrics);
			runs.add(metrics);
		}
		return runs;
	}

	private void enqueue(QueueImplementation implementation) {
		int warmup = warmupTasks();
		List<Metrics> runs = measuredRuns(implementation, "enqueue", (tasks) -> enqueueRun(implementation, tasks));
		Metrics medians = Metrics.medians(runs);
		medians.put("round trips/task single", enqueueCensus(implementation, warmup));
		this.enqueue.add(implementation.name(), medians,
				"single per run " + Metrics.spread(runs, "single tasks/s") + "; batch: "
						+ implementation.batchDescription() + ", " + this.settings.batchSize() + " per call, per run "
						+ Metrics.spread(runs, "batch tasks/s"));
	}

	private Metrics enqueueRun(QueueImplementation implementation, int tasks) {
		Metrics metrics = new Metrics();
		this.probe.flushAll();
		try (QueueClient client = connect(implementation, IGNORE)) {
			Snapshot before = this.probe.snapshot();
			long cpuBefore = CpuClock.processCpuNanos();
			long start = System.nanoTime();
			for (int i = 0; i < tasks; i++) {
				client.schedule(String.valueOf(i), TaskTracker.payload(i, 0), FAR_AWAY);
			}
			long elapsed = System.nanoTime() - start;
			long cpu = CpuClock.processCpuNanos() - cpuBefore;
			Snapshot after = this.probe.snapshot();
			metrics.put("single tasks/s", tasks / (elapsed / 1e9))
				.put("Redis cmds/task single", (double) after.commandsSince(before) / tasks)
				.put("client CPU µs/task single", cpu / 1e3 / tasks);
		}
		this.probe.flushAll();
		try (QueueClient client = connect(implementation, IGNORE)) {
			List<List<QueueClient.Task>> batches = new ArrayList<>();
			for (int first = 0; first < tasks; first += this.settings.batchSize()) {
				batches.add(batch(first, tasks, FAR_AWAY));
			}
			Snapshot before = this.probe.snapshot();
			long start = System.nanoTime();
			batches.forEach(client::scheduleAll);
			long elapsed = System.nanoTime() - start;
			Snapshot after = this.probe.snapshot();
			metrics.put("batch tasks/s", tasks / (elapsed / 1e9))
				.put("Redis cmds/task batch", (double) after.commandsSince(before) / tasks);
		}
		return metrics;
	}

	/** A tenth of the tasks, at least 1000 (unless there are fewer tasks than that). */
	private int warmupTasks() {
		return Math.max(this.settings.tasks() / 10, Math.min(1000, this.settings.tasks()));
	}

	private double enqueueCensus(QueueImplementation implementation, int tasks) {
		this.probe.flushAll();
		try (QueueClient client = connect(implementation, IGNORE)) {
			return CommandCensus.during(this.redisUrl, this.settings.scaled(CommandCensus.TRAIL), () -> {
				for (int i = 0; i < tasks; i++) {
					client.schedule(String.valueOf(i), TaskTracker.payload(i, 0), FAR_AWAY);
				}
				return (long) tasks;
			}).clientCommandsPerOperation();
		}
	}

	private void drain(QueueImplementation implementation) {
		int warmupTasks = warmupTasks();
		// stores at 2k tasks/s at least (Redisson does 10k/s): this run measures the rate used below,
		// which --warmup=0ms takes to be that least rate instead
		double fillRate = LEAST_FILL_RATE;
		if (!this.settings.skipsWarmup()) {
			Drained warmup = drainRun(implementation, warmupTasks,
					max(this.settings.scaled(LEAST_FILL), Duration.ofMillis(warmupTasks / 2)), false);
			fillRate = warmupTasks / (warmup.fillNanos() / 1e9);
		}
		Duration budget = fillBudget(this.settings.tasks(), fillRate);
		List<Metrics> runs = new ArrayList<>();
		List<String> notes = new ArrayList<>();
		for (int i = 0; i < this.settings.runs(); i++) {
			Drained run = drainRun(implementation, this.settings.tasks(), budget, false);
			log(implementation, "drain", i, run.metrics());
			runs.add(run.metrics());
			if (!run.note().isEmpty()) {
				notes.add("run " + (i + 1) + ": " + run.note());
			}
			if (run.metrics().get("drain s") > LONG_DRAIN_SECONDS && i + 1 < this.settings.runs()) {
				notes.add("measured once: a run of over " + LONG_DRAIN_SECONDS + " s is not repeated");
				break;
			}
		}
		Metrics medians = Metrics.medians(runs);
		medians.put("round trips/task",
				drainRun(implementation, warmupTasks, fillBudget(warmupTasks, fillRate), true).metrics()
					.get("round trips/task"));
		this.drain.add(implementation.name(), medians, "tasks/s per run " + Metrics.spread(runs, "tasks/s")
				+ "; tasks stored " + Table.format(fillRate) + "/s with scheduleAll before falling due"
				+ (notes.isEmpty() ? "" : "; " + String.join("; ", notes)));
	}

	/**
	 * Tasks fall due while others are still being stored, as in an application that schedules
	 * all the time: the consumers claim and acknowledge beside the producer. Tasks/s is measured
	 * from the start of storing to the last task handled, Redis CPU over the same time (enqueue,
	 * claim and acknowledgement).
	 */
	private void spreadDrain(QueueImplementation implementation) {
		List<Metrics> runs = measuredRuns(implementation, "spread drain",
				(tasks) -> spreadDrainRun(implementation, tasks));
		this.spreadDrain.add(implementation.name(), Metrics.medians(runs),
				"tasks/s per run " + Metrics.spread(runs, "tasks/s"));
	}

	private Metrics spreadDrainRun(QueueImplementation implementation, int tasks) {
		this.probe.flushAll();
		TaskTracker tracker = new TaskTracker(tasks);
		try (QueueClient client = connect(implementation, tracker)) {
			Snapshot before = this.probe.snapshot();
			long cpuBefore = CpuClock.processCpuNanos();
			long start = System.nanoTime();
			// Due at random times until the storing is expected to end, at Baton's scheduleAll rate
			long storingEnds = start + max(this.settings.scaled(LEAST_FILL), Duration.ofMillis(tasks / 100)).toNanos();
			ThreadLocalRandom random = ThreadLocalRandom.current();
			for (int first = 0; first < tasks; first += this.settings.batchSize()) {
				int to = Math.min(tasks, first + this.settings.batchSize());
				List<QueueClient.Task> batch = new ArrayList<>(to - first);
				for (int id = first; id < to; id++) {
					long left = Math.max(0, storingEnds - System.nanoTime());
					batch.add(new QueueClient.Task(String.valueOf(id), TaskTracker.payload(id, 0),
							Duration.ofNanos(random.nextLong(left + 1))));
				}
				client.scheduleAll(batch);
			}
			boolean finished = tracker.awaitAll(System.nanoTime() + this.settings.drainTimeout().toNanos());
			long end = finished ? tracker.lastHandledNanos() : System.nanoTime();
			LockSupport.parkNanos(this.settings.scaled(DRAIN_SETTLE).toNanos());
			long cpu = CpuClock.processCpuNanos() - cpuBefore;
			Snapshot after = this.probe.snapshot();
			return drainMetrics(tracker, (end - start) / 1e9, before, after, cpu);
		}
	}

	/** The figures of a drain that took {@code seconds}, with Redis's and this JVM's costs per task. */
	private static Metrics drainMetrics(TaskTracker tracker, double seconds, Snapshot before, Snapshot after,
			long cpuNanos) {
		int handled = Math.max(1, tracker.handled());
		return new Metrics().put("tasks/s", tracker.handled() / seconds)
			.put("drain s", seconds)
			.put("missing", tracker.missing())
			.put("duplicates", tracker.duplicates())
			.put("Redis cmds/task", (double) after.commandsSince(before) / handled)
			.put("Redis CPU µs/task", after.cpuSecondsSince(before) * 1e6 / handled)
			.put("client CPU µs/task", cpuNanos / 1e3 / handled);
	}

	/** Time to store the tasks at the rate seen in the warm-up, with a margin. */
	private Duration fillBudget(int tasks, double fillRate) {
		return Duration.ofMillis((long) (tasks / fillRate * 1500)).plus(this.settings.scaled(LEAST_FILL));
	}

	private static Duration max(Duration one, Duration other) {
		return (one.compareTo(other) > 0) ? one : other;
	}

	/**
	 * Stores tasks due at one instant, then measures how fast the running consumers handle them.
	 * With {@code census}, it counts the commands clients send during the drain instead (slower:
	 * not a timed run).
	 */
	private Drained drainRun(QueueImplementation implementation, int tasks, Duration budget, boolean census) {
		this.probe.flushAll();
		TaskTracker tracker = new TaskTracker(tasks);
		try (QueueClient client = connect(implementation, tracker)) {
			long fillStart = System.nanoTime();
			long dueNanos = fillStart + budget.toNanos();
			for (int first = 0; first < tasks; first += this.settings.batchSize()) {
				client.scheduleAll(batch(first, tasks, Duration.ofNanos(dueNanos - System.nanoTime())));
			}
			long fillEnd = System.nanoTime();
			CommandCensus monitor = census ? CommandCensus.start(this.redisUrl) : null;
			Snapshot before = this.probe.snapshot();
			long cpuBefore = CpuClock.processCpuNanos();
			boolean finished = tracker.awaitAll(dueNanos + this.settings.drainTimeout().toNanos());
			long end = finished ? tracker.lastHandledNanos() : System.nanoTime();
			LockSupport.parkNanos(this.settings.scaled(DRAIN_SETTLE).toNanos());
			long cpu = CpuClock.processCpuNanos() - cpuBefore;
			Snapshot after = this.probe.snapshot();
			if (monitor != null) {
				double roundTrips = monitor.per(Math.max(1, tracker.handled()), this.settings.scaled(CommandCensus.TRAIL))
					.clientCommandsPerOperation();
				monitor.close();
				return new Drained(new Metrics().put("round trips/task", roundTrips), fillEnd - fillStart, "");
			}
			double seconds = (end - dueNanos) / 1e9;
			Metrics metrics = drainMetrics(tracker, seconds, before, after, cpu);
			String note = "";
			if (fillEnd > dueNanos) {
				note = "storing overran the due instant by " + (fillEnd - dueNanos) / 1_000_000 + " ms";
			}
			if (!finished) {
				note += (note.isEmpty() ? "" : ", ") + "unfinished after the " + this.settings.drainTimeout().toSeconds()
						+ " s timeout: " + tracker.handled() + " of " + tasks + " handled";
			}
			return new Drained(metrics, fillEnd - fillStart, note);
		}
	}

	private void lateness(QueueImplementation implementation) {
		Duration warmup = this.settings.warmup().compareTo(this.settings.latenessDuration()) < 0 ? this.settings.warmup()
				: this.settings.latenessDuration();
		if (!this.settings.skipsWarmup()) {
			latenessRun(implementation, warmup);
		}
		List<Metrics> runs = new ArrayList<>();
		for (int i = 0; i < this.settings.runs(); i++) {
			Metrics run = latenessRun(implementation, this.settings.latenessDuration());
			log(implementation, "lateness", i, run);
			runs.add(run);
		}
		this.lateness.add(implementation.name(), Metrics.medians(runs),
				"p99 ms per run " + Metrics.spread(runs, "p99 ms") + "; max ms per run " + Metrics.spread(runs, "max ms")
						+ "; lateness = handler start minus (client clock before schedule + delay)");
	}

	private Metrics latenessRun(QueueImplementation implementation, Duration duration) {
		int tasks = (int) (this.settings.latenessRate() * duration.toMillis() / 1000);
		long interval = TimeUnit.SECONDS.toNanos(1) / this.settings.latenessRate();
		long maxDelayMillis = this.settings.latenessMaxDelay().toMillis();
		this.probe.flushAll();
		TaskTracker tracker = new TaskTracker(tasks);
		try (QueueClient client = connect(implementation, tracker)) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long start = System.nanoTime();
			for (int i = 0; i < tasks; i++) {
				LockSupport.parkNanos(start + i * interval - System.nanoTime());
				long delayMillis = 100 + random.nextInt((int) Math.max(1, maxDelayMillis - 99));
				long dueMicros = TaskTracker.wallMicros() + delayMillis * 1000;
				client.schedule(String.valueOf(i), TaskTracker.payload(i, dueMicros), Duration.ofMillis(delayMillis));
			}
			tracker.awaitAll(System.nanoTime() + TimeUnit.SECONDS.toNanos(15));
			LockSupport.parkNanos(this.settings.scaled(LATENESS_SETTLE).toNanos());
			Samples lateness = tracker.lateness();
			return new Metrics().put("tasks", tracker.handled())
				.put("p50 ms", lateness.percentile(50) / 1e3)
				.put("p99 ms", lateness.percentile(99) / 1e3)
				.put("max ms", lateness.max() / 1e3)
				.put("missing", tracker.missing())
				.put("duplicates", tracker.duplicates());
		}
	}

	private void idle(QueueImplementation implementation) {
		this.probe.flushAll();
		TaskTracker tracker = new TaskTracker(1);
		try (QueueClient client = connect(implementation, tracker)) {
			client.schedule("0", TaskTracker.payload(0, TaskTracker.wallMicros() + 100_000), Duration.ofMillis(100));
			if (!tracker.awaitAll(System.nanoTime() + TimeUnit.SECONDS.toNanos(10))) {
				throw new IllegalStateException("The task scheduled before idling was not handled within 10 s");
			}
			LockSupport.parkNanos(this.settings.scaled(IDLE_SETTLE).toNanos());
			Snapshot before = this.probe.snapshot();
			LockSupport.parkNanos(this.settings.idleDuration().toNanos());
			Snapshot after = this.probe.snapshot();
			double seconds = this.settings.idleDuration().toMillis() / 1000.0;
			Metrics metrics = new Metrics().put("Redis cmds/s", after.commandsSince(before) / seconds);
			System.out.println("  " + implementation.name() + " idle: " + metrics);
			this.idle.add(implementation.name(), metrics, "one instance, over " + Table.format(seconds) + " s: "
					+ after.callsSince(before) + " (INFO commandstats, the harness's INFO excluded)");
		}
	}

	private QueueClient connect(QueueImplementation implementation, TaskHandler handler) {
		return implementation.connect(this.redisUrl, "bench-" + this.queueIds.incrementAndGet(),
				this.settings.consumers(), handler);
	}

	private List<QueueClient.Task> batch(int from, int tasks, Duration delay) {
		int to = Math.min(tasks, from + this.settings.batchSize());
		List<QueueClient.Task> batch = new ArrayList<>(to - from);
		for (int id = from; id < to; id++) {
			batch.add(new QueueClient.Task(String.valueOf(id), TaskTracker.payload(id, 0), delay));
		}
		return batch;
	}

	private static void log(QueueImplementation implementation, String scenario, int run, Metrics metrics) {
		System.out.println("  " + implementation.name() + " " + scenario + " run " + (run + 1) + ": " + metrics);
	}

	private record Drained(Metrics metrics, long fillNanos, String note) {
	}

}
