package dev.baton.harness;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault-finding harness against a Sentinel set: the instances find the primary through the
 * sentinels and follow their switches as the application does, under {@code SENTINEL FAILOVER}
 * and {@code kill -9} of the primary on the seed's schedule. The same invariants as the
 * standalone run, and nothing excused as lost with Redis's data: tasks handled again after a
 * failover are counted per failover in the report, not failed. {@code -Dbaton.harness.sentinel.seeds}
 * and {@code -Dbaton.harness.sentinel.duration} as for {@link FaultFindingHarnessTests}.
 */
class SentinelHarnessTests {

	static final String SEEDS_PROPERTY = "baton.harness.sentinel.seeds";

	/** A failover, a primary kill and another failover. */
	private static final long[] FIXED_SEEDS = { 7 };

	private static final Duration DEFAULT_FAULT_PHASE = Duration.ofSeconds(25);

	static List<Long> seeds() {
		return HarnessProperties.seeds(SEEDS_PROPERTY, FIXED_SEEDS);
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void noNewViolationUnderFailovers(long seed) throws InterruptedException {
		Duration faultPhase = HarnessProperties.faultPhase("baton.harness.sentinel.duration", DEFAULT_FAULT_PHASE);
		HarnessReport report = new HarnessRun(seed, faultPhase, SentinelTopology::new).run();
		assertThat(report.newViolations()).as(report::describe).isEmpty();
	}

}
