package dev.baton.harness;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault-finding harness against a Redis Cluster of 3 primaries ({@link ClusterTopology}): each
 * instance a cluster client, under {@code SIGSTOP} freezes of one primary and
 * {@code CLIENT KILL TYPE normal} on one primary, on the seed's schedule, and consumer restarts.
 * The same invariants as the standalone run, and nothing excused as lost with Redis's data: a
 * frozen primary makes calls time out, it loses nothing. {@code -Dbaton.harness.cluster.seeds} and
 * {@code -Dbaton.harness.cluster.duration} as for {@link FaultFindingHarnessTests}.
 */
class ClusterHarnessTests {

	static final String SEEDS_PROPERTY = "baton.harness.cluster.seeds";

	/**
	 * Three freezes: primary-2 for 1.1 s, within the node timeout; primary-1 for 3.0 s and
	 * primary-2 for 3.6 s, long enough that the others mark it failed and the cluster answers
	 * {@code CLUSTERDOWN} for about 4 s (in a trial run, 10.4 to 14.6 s and 18.8 to 23.6 s); a
	 * {@code CLIENT KILL} on primary-1 and a consumer restart between them.
	 */
	private static final long[] FIXED_SEEDS = { 12 };

	private static final Duration DEFAULT_FAULT_PHASE = Duration.ofSeconds(20);

	static List<Long> seeds() {
		return HarnessProperties.seeds(SEEDS_PROPERTY, FIXED_SEEDS);
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void noNewViolationUnderFreezesOfAPrimary(long seed) throws InterruptedException {
		Duration faultPhase = HarnessProperties.faultPhase("baton.harness.cluster.duration", DEFAULT_FAULT_PHASE);
		HarnessReport report = new HarnessRun(seed, faultPhase, ClusterTopology::new).run();
		assertThat(report.newViolations()).as(report::describe).isEmpty();
	}

}
