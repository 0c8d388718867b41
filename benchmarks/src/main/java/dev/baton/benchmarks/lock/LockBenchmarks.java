package dev.baton.benchmarks.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.benchmarks.BenchmarkSettings;
import dev.baton.benchmarks.Benchmarks;
import dev.baton.benchmarks.support.ChildJvm;
import dev.baton.benchmarks.support.CommandCensus;
import dev.baton.benchmarks.support.CpuClock;
import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.RedisProbe.Snapshot;
import dev.baton.benchmarks.support.Samples;
import dev.baton.benchmarks.support.Table;

/**
 * The lock scenarios of issue 3, each run for every selected implementation: a warm-up run,
 * then measured runs whose medians go in the table.
 */
public final class LockBenchmarks {

	private static final List<String> THROUGHPUT = List.of("pairs/s", "client CPU µs/pair", "Redis CPU µs/pair",
			"round trips/pair", "Redis cmds/pair");

	private static final List<String> CONTENDED = List.of("pairs/s", "hand-off p50 ms", "hand-off p99 ms",
			"hand-offs %", "client CPU µs/pair", "Redis CPU µs/pair", "round trips/pair", "Redis cmds/pair",
			"violations");

	private static final List<String> TWO_JVMS = List.of("pairs/s", "hand-off p50 ms", "hand-off p99 ms",
			"hand-offs %", "child JVM pairs %", "client CPU µs/pair", "Redis CPU µs/pair", "round trips/pair",
			"Redis cmds/pair", "violations");

	private static final Duration CENSUS_DURATION = Duration.ofSeconds(1);

	/** Time for the threads of a run to start before it begins (scaled by {@code --wait-scale}). */
	private static final Duration START_DELAY = Duration.ofMillis(200);

	private final BenchmarkSettings settings;

	private final String redisUrl;

	private final RedisProbe probe;

	private final AtomicInteger runIds = new AtomicInteger();

	private final Table uncontended;

	private final Table contended;

	private final Table twoJvms;

	public LockBenchmarks(BenchmarkSettings settings, String redisUrl, RedisProbe probe) {
		this.settings = settings;
		this.redisUrl = redisUrl;
		this.probe = probe;
		int threads = settings.lockThreads();
		this.uncontended = new Table("Locks, uncontended: " + threads + " threads, random names", THROUGHPUT);
		this.contended = new Table("Locks, contended: one name, " + threads + " threads in one JVM", CONTENDED);
		this.twoJvms = new Table("Locks, contended: one name, 2 JVMs x " + threads / 2 + " threads", TWO_JVMS);
	}

	/**
	 * Runs every scenario for every selected implementation.
	 * @param implementations the implementations to consider
	 * @return the result tables
	 */
	public List<Table> run(List<LockImplementation> implementations) {
		for (LockImplementation implementation : implementations) {
			if (!this.settings.selects(implementation.name())) {
				continue;
			}
			try (LockClient client = implementation.connect(this.redisUrl)) {
				measure(this.uncontended, implementation.name() + " uncontended", (duration) -> uncontended(client, duration));
				if (implementation.waits()) {
					HandoffBoard board = HandoffBoard.create();
					measure(this.contended, implementation.name() + " contended", (duration) -> contended(client, board, duration));
					measureTwoJvms(implementation, client, board);
				}
			}
			catch (RuntimeException ex) {
				report(implementation.name(), ex);
				this.uncontended.add(implementation.name(), new Metrics(), "failed: " + ex.getMessage());
			}
		}
		return List.of(this.uncontended, this.contended, this.twoJvms);
	}

	private void measureTwoJvms(LockImplementation implementation, LockClient client, HandoffBoard board) {
		int childThreads = this.settings.lockThreads() / 2;
		String key = "bench:lock:two-jvms";
		try (ChildJvm child = ChildJvm.start(Benchmarks.class, LockChild.MODE, implementation.name(), this.redisUrl,
				board.file().toString(), key, String.valueOf(childThreads))) {
			child.await("READY");
			measure(this.twoJvms, implementation.name() + " two JVMs",
					(duration) -> twoJvms(client, board, child, key, duration));
		}
		catch (RuntimeException ex) {
			report(implementation.name() + " two JVMs", ex);
			this.twoJvms.add(implementation.name(), new Metrics(), "failed: " + ex.getMessage());
		}
	}

	private void measure(Table table, String label, Run run) {
		try {
			if (!this.settings.skipsWarmup()) {
				run.measure(this.settings.warmup());
			}
			List<Metrics> runs = new ArrayList<>();
			String commands = "";
			for (int i = 0; i < this.settings.runs(); i++) {
				this.probe.flushAll();
				Measured measured = run.measure(this.settings.duration());
				System.out.println("  " + label + " run " + (i + 1) + ": " + measured.metrics());
				runs.add(measured.metrics());
				commands = measured.commands();
			}
			Metrics medians = Metrics.medians(runs);
			Duration trail = this.settings.scaled(CommandCensus.TRAIL);
			CommandCensus.Result census = CommandCensus.during(this.redisUrl, trail, () -> {
				this.probe.flushAll();
				return run.measure(min(CENSUS_DURATION, this.settings.duration())).pairs();
			});
			medians.put("round trips/pair", census.clientCommandsPerOperation());
			table.add(label.substring(0, label.indexOf(' ')), medians,
					"pairs/s per run " + Metrics.spread(runs, "pairs/s") + "; commands/pair: " + commands);
		}
		catch (RuntimeException ex) {
			report(label, ex);
			table.add(label.substring(0, label.indexOf(' ')), new Metrics(), "failed: " + ex.getMessage());
		}
	}

	private long startDelayNanos() {
		return this.settings.scaled(START_DELAY).toNanos();
	}

	private static Duration min(Duration one, Duration other) {
		return (one.compareTo(other) < 0) ? one : other;
	}

	private Measured uncontended(LockClient client, Duration duration) {
		String prefix = "bench:lock:u" + this.runIds.incrementAndGet() + ":";
		Snapshot before = this.probe.snapshot();
		long cpuBefore = CpuClock.processCpuNanos();
		long start = System.nanoTime() + startDelayNanos();
		LockWorkload.Outcome outcome = LockWorkload.uncontended(client, this.settings.lockThreads(), prefix, start,
				start + duration.toNanos());
		long cpu = CpuClock.processCpuNanos() - cpuBefore;
		return measured(outcome, duration, cpu, before, this.probe.snapshot(), -1);
	}

	private Measured contended(LockClient client, HandoffBoard board, Duration duration) {
		String key = "bench:lock:c" + this.runIds.incrementAndGet();
		board.reset();
		Snapshot before = this.probe.snapshot();
		long cpuBefore = CpuClock.processCpuNanos();
		long start = System.nanoTime() + startDelayNanos();
		LockWorkload.Outcome outcome = LockWorkload.contended(client, this.settings.lockThreads(), key, board, 0, start,
				start + duration.toNanos());
		long cpu = CpuClock.processCpuNanos() - cpuBefore;
		return measured(outcome, duration, cpu, before, this.probe.snapshot(), board.violations());
	}

	private Measured twoJvms(LockClient client, HandoffBoard board, ChildJvm child, String key, Duration duration) {
		board.reset();
		Snapshot before = this.probe.snapshot();
		long cpuBefore = CpuClock.processCpuNanos();
		long start = System.nanoTime() + startDelayNanos();
		long deadline = start + duration.toNanos();
		child.send("RUN " + start + " " + deadline);
		LockWorkload.Outcome outcome = LockWorkload.contended(client, this.settings.lockThreads() / 2, key, board, 0,
				start, deadline);
		long cpu = CpuClock.processCpuNanos() - cpuBefore;
		String[] done = child.await("DONE").split(" ", 3);
		LockWorkload.Outcome childOutcome = new LockWorkload.Outcome(Long.parseLong(done[0]),
				Samples.decode((done.length > 2) ? done[2] : ""));
		cpu += Long.parseLong(done[1]);
		Measured measured = measured(outcome.plus(childOutcome), duration, cpu, before, this.probe.snapshot(),
				board.violations());
		measured.metrics()
			.put("child JVM pairs %", 100.0 * childOutcome.pairs() / Math.max(1, outcome.pairs() + childOutcome.pairs()));
		return measured;
	}

	private static Measured measured(LockWorkload.Outcome outcome, Duration duration, long cpuNanos, Snapshot before,
			Snapshot after, long violations) {
		long pairs = Math.max(1, outcome.pairs());
		Metrics metrics = new Metrics().put("pairs/s", outcome.pairs() / (duration.toNanos() / 1e9))
			.put("client CPU µs/pair", cpuNanos / 1e3 / pairs)
			.put("Redis CPU µs/pair", after.cpuSecondsSince(before) * 1e6 / pairs)
			.put("Redis cmds/pair", (double) after.commandsSince(before) / pairs);
		if (violations >= 0) {
			Samples handoffs = outcome.handoffs();
			metrics.put("hand-off p50 ms", handoffs.percentile(50) / 1e6)
				.put("hand-off p99 ms", handoffs.percentile(99) / 1e6)
				.put("hand-offs %", 100.0 * handoffs.size() / pairs)
				.put("violations", violations);
		}
		return new Measured(metrics, after.callsPer(before, pairs), outcome.pairs());
	}

	private static void report(String label, RuntimeException ex) {
		System.out.println("  " + label + " FAILED: " + ex);
		ex.printStackTrace(System.out);
	}

	@FunctionalInterface
	private interface Run {

		Measured measure(Duration duration);

	}

	private record Measured(Metrics metrics, String commands, long pairs) {
	}

}
