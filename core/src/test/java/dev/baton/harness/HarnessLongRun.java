package dev.baton.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Long runs of the fault-finding harness, outside the build: one random seed after another on a
 * topology until a total time has passed, each run's report printed when it found a violation,
 * and the totals at the end, for {@code docs/guarantees.md}. The benchmarks' {@code harness}
 * command runs it:
 *
 * <pre>
 * java -jar baton-benchmarks.jar harness standalone|sentinel|cluster 30m [60s]
 * </pre>
 *
 * The last argument is each run's fault phase (60 s unless given). Every report names its seed,
 * which the JUnit tests of its topology replay (the report names the property).
 */
public final class HarnessLongRun {

	private static final Map<String, Function<Timeline, HarnessTopology>> TOPOLOGIES = Map.of("standalone",
			StandaloneTopology::new, "sentinel", SentinelTopology::new, "cluster", ClusterTopology::new);

	private HarnessLongRun() {
	}

	public static void main(String[] arguments) throws InterruptedException {
		if (arguments.length < 2 || !TOPOLOGIES.containsKey(arguments[0])) {
			System.err.println("Usage: harness " + String.join("|", TOPOLOGIES.keySet()) + " <total, e.g. 30m> [fault phase, e.g. 60s]");
			System.exit(2);
		}
		Duration total = duration(arguments[1]);
		Duration faultPhase = (arguments.length > 2) ? duration(arguments[2]) : Duration.ofSeconds(60);
		System.out.println(run(arguments[0], TOPOLOGIES.get(arguments[0]), total, faultPhase));
		System.exit(0);
	}

	/** Runs random seeds until {@code total} has passed; returns the totals as Markdown lines. */
	static String run(String name, Function<Timeline, HarnessTopology> topology, Duration total, Duration faultPhase)
			throws InterruptedException {
		long start = System.nanoTime();
		List<Long> seeds = new ArrayList<>();
		int faults = 0;
		int violations = 0;
		int newViolations = 0;
		while (seeds.isEmpty() || System.nanoTime() - start < total.toNanos()) {
			long seed = HarnessProperties.randomSeed(seeds.size());
			HarnessReport report = new HarnessRun(seed, faultPhase, topology).run();
			seeds.add(seed);
			faults += report.faultsApplied();
			violations += report.violations().size();
			newViolations += report.newViolations().size();
			if (!report.violations().isEmpty()) {
				System.out.println(report.describe());
			}
		}
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		return "Harness long run, " + name + ": " + seeds.size() + " runs of " + faultPhase.toSeconds()
				+ " s of faults in " + took.toMinutes() + " min, " + faults + " faults applied, " + violations
				+ " violations (" + newViolations + " new, the rest known defects)\nSeeds: " + seeds;
	}

	private static Duration duration(String text) {
		return Duration.parse("PT" + text.trim().toUpperCase());
	}

}
