package dev.baton.harness;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A seed is a replayable fault timeline: the promise that makes a failing seed worth keeping. */
class FaultScheduleTests {

	@Test
	void sameSeedGivesTheSameTimeline() {
		assertThat(FaultSchedule.generate(27, 3, 15_000).describe())
			.isEqualTo(FaultSchedule.generate(27, 3, 15_000).describe())
			.isNotEqualTo(FaultSchedule.generate(28, 3, 15_000).describe());
	}

	@Test
	void faultsOfOneInstanceFollowEachOtherAndAllEndBeforeTheFaultPhase() {
		LongStream.range(0, 200).mapToObj((seed) -> FaultSchedule.generate(seed, 3, 15_000)).forEach((schedule) -> {
			for (int track = -1; track < 3; track++) {
				List<Fault> faults = schedule.track(track);
				for (int i = 1; i < faults.size(); i++) {
					assertThat(faults.get(i).atMillis()).isGreaterThan(faults.get(i - 1).endMillis());
				}
				assertThat(faults).allSatisfy((fault) -> assertThat(fault.endMillis()).isLessThan(15_000));
			}
			assertThat(schedule.track(-1)).filteredOn((fault) -> fault.kind() == FaultKind.REDIS_KILL
					|| fault.kind() == FaultKind.REDIS_KILL_WITH_AOF)
				.hasSizeLessThanOrEqualTo(1);
		});
	}

	@Test
	void theChildJvmIsPausedOnATrackOfItsOwnMostlyPastALease() {
		List<Fault> pauses = LongStream.range(0, 200)
			.mapToObj((seed) -> FaultSchedule.generate(seed, 3, 15_000))
			.flatMap((schedule) -> {
				List<Fault> track = schedule.track(3);
				for (int i = 1; i < track.size(); i++) {
					assertThat(track.get(i).atMillis()).isGreaterThan(track.get(i - 1).endMillis());
				}
				return track.stream();
			})
			.toList();
		assertThat(pauses).isNotEmpty()
			.allSatisfy((fault) -> assertThat(fault.kind()).isEqualTo(FaultKind.JVM_PAUSE))
			.allSatisfy((fault) -> assertThat(fault.endMillis()).isLessThan(15_000));
		assertThat(pauses.stream().filter((fault) -> fault.durationMillis() > 1500).count())
			.isGreaterThan(pauses.size() / 2L);
		assertThat(FaultSchedule.generate(27, 3, 15_000).describe()).contains("child-jvm   JVM_PAUSE for ");
	}

	@Test
	void sentinelFaultsAreFailoversAndPrimaryKillsOfTheServerSpacedForAReplicaToCatchUp() {
		LongStream.range(0, 200).mapToObj((seed) -> FaultSchedule.generateSentinel(seed, 3, 25_000)).forEach((schedule) -> {
			List<Fault> faults = schedule.track(-1);
			assertThat(faults).isNotEmpty()
				.allSatisfy((fault) -> assertThat(fault.kind()).isIn(FaultKind.FAILOVER, FaultKind.PRIMARY_KILL))
				.allSatisfy((fault) -> assertThat(fault.endMillis()).isLessThan(25_000));
			for (int i = 1; i < faults.size(); i++) {
				assertThat(faults.get(i).atMillis()).isGreaterThanOrEqualTo(faults.get(i - 1).endMillis() + 7000);
			}
			for (int instance = 0; instance < 3; instance++) {
				assertThat(schedule.track(instance)).allSatisfy((fault) -> assertThat(fault.kind())
					.isIn(FaultKind.CONSUMER_RESTART, FaultKind.LOCKS_RESTART, FaultKind.INSTANCE_RESTART));
			}
		});
		assertThat(FaultSchedule.generateSentinel(27, 3, 25_000).describe())
			.isEqualTo(FaultSchedule.generateSentinel(27, 3, 25_000).describe());
	}


	@Test
	void clusterFaultsAreFreezesKillsPausesAndClientKillsOfOnePrimaryAndLinkFaultsSparserThanStandalone() {
		LongStream.range(0, 200).mapToObj((seed) -> FaultSchedule.generateCluster(seed, 3, 20_000)).forEach((schedule) -> {
			List<Fault> faults = schedule.track(-1);
			assertThat(faults).isNotEmpty()
				.allSatisfy((fault) -> assertThat(fault.kind()).isIn(FaultKind.PRIMARY_FREEZE,
						FaultKind.PRIMARY_KILL_WITH_AOF, FaultKind.PRIMARY_PAUSE, FaultKind.CLIENT_KILL))
				.allSatisfy((fault) -> assertThat(fault.node()).isBetween(0, FaultSchedule.CLUSTER_PRIMARIES - 1))
				.allSatisfy((fault) -> assertThat(fault.endMillis()).isLessThan(20_000));
			for (int i = 1; i < faults.size(); i++) {
				assertThat(faults.get(i).atMillis()).isGreaterThanOrEqualTo(faults.get(i - 1).endMillis() + 2000);
			}
			for (int instance = 0; instance < 3; instance++) {
				assertThat(schedule.track(instance))
					.allSatisfy((fault) -> assertThat(fault.kind()).isIn(FaultKind.CONSUMER_RESTART, FaultKind.LOCKS_RESTART,
							FaultKind.INSTANCE_RESTART, FaultKind.CUT, FaultKind.BLACK_HOLE, FaultKind.LATENCY,
							FaultKind.RESET_AFTER_FORWARD));
				List<Fault> link = schedule.track(instance).stream().filter((fault) -> fault.kind().timedHere()).toList();
				for (int i = 1; i < link.size(); i++) {
					assertThat(link.get(i).atMillis()).isGreaterThanOrEqualTo(link.get(i - 1).endMillis() + 2500);
				}
			}
		});
		assertThat(FaultSchedule.generateCluster(27, 3, 20_000).describe())
			.isEqualTo(FaultSchedule.generateCluster(27, 3, 20_000).describe());
		assertThat(FaultSchedule.generateCluster(12, 3, 20_000).track(3)).isNotEmpty()
			.allSatisfy((fault) -> assertThat(fault.kind()).isEqualTo(FaultKind.JVM_PAUSE));
	}

	/**
	 * The cluster's method and the node of a fault changed no other topology's timeline, and the
	 * lock manager and instance restarts, drawn from random streams of their own, only came in
	 * between.
	 */
	@Test
	void standaloneAndSentinelTimelinesOfASeedAreAsBefore() {
		String standalone = FaultSchedule.generate(27, 3, 15_000).describe();
		assertThat(standalone).contains("LOCKS_RESTART", "INSTANCE_RESTART");
		assertThat(faultsBesides(standalone)).isEqualTo(faultsBesides(STANDALONE_27));
		String sentinel = FaultSchedule.generateSentinel(7, 3, 25_000).describe();
		assertThat(sentinel).contains("CONSUMER_RESTART");
		assertThat(faultsBesides(sentinel)).isEqualTo(faultsBesides(SENTINEL_7));
	}

	/**
	 * A killed primary takes the place, the length and the node of a freeze the seed had: the
	 * server track of the build's Cluster seed is as before kills, but for the kinds.
	 */
	@Test
	void aboutOneClusterFreezeInTwoKillsThePrimaryInsteadKeepingTheTimeline() {
		assertThat(FaultSchedule.generateCluster(12, 3, 20_000).track(-1))
			.extracting((fault) -> fault.describe().trim().replace("PRIMARY_KILL_WITH_AOF", "PRIMARY_FREEZE"))
			.containsExactly("2666 ms  primary-2   PRIMARY_FREEZE for 1133 ms",
					"7423 ms  primary-1   PRIMARY_FREEZE for 3015 ms", "13034 ms  primary-1   PRIMARY_PAUSE for 3872 ms");
		List<FaultKind> stops = LongStream.range(0, 200)
			.mapToObj((seed) -> FaultSchedule.generateCluster(seed, 3, 20_000))
			.flatMap((schedule) -> schedule.track(-1).stream())
			.map(Fault::kind)
			.filter((kind) -> kind == FaultKind.PRIMARY_FREEZE || kind == FaultKind.PRIMARY_KILL_WITH_AOF)
			.toList();
		long kills = stops.stream().filter((kind) -> kind == FaultKind.PRIMARY_KILL_WITH_AOF).count();
		assertThat(kills).isBetween(stops.size() / 3L, stops.size() * 2L / 3);
	}

	@Test
	void killsRestartRedisEmptyOrFromItsAppendOnlyFile() {
		List<Fault> kills = LongStream.range(0, 200)
			.mapToObj((seed) -> FaultSchedule.generate(seed, 3, 15_000))
			.flatMap((schedule) -> schedule.track(-1).stream())
			.filter((fault) -> fault.kind() == FaultKind.REDIS_KILL || fault.kind() == FaultKind.REDIS_KILL_WITH_AOF)
			.toList();
		assertThat(kills).extracting(Fault::kind).contains(FaultKind.REDIS_KILL, FaultKind.REDIS_KILL_WITH_AOF);
	}

	/**
	 * The lines of a timeline's faults, without its heading and without restarts, which come from
	 * random streams of their own and were added since (the Sentinel timelines had none at all), and
	 * without the child JVM's pauses, also from a stream of their own.
	 */
	private static List<String> faultsBesides(String timeline) {
		return timeline.lines()
			.skip(1)
			.filter((line) -> !line.contains("_RESTART") && !line.contains("JVM_PAUSE"))
			.toList();
	}

	/** As on main before the cluster's timeline was added. */
	private static final String STANDALONE_27 =
			"Fault timeline of seed 27 (17 faults):\n"
			+ "     893 ms  instance-2  BLACK_HOLE for 4191 ms\n"
			+ "    1530 ms  instance-0  BLACK_HOLE for 1157 ms\n"
			+ "    2042 ms  instance-1  RESET_AFTER_FORWARD\n"
			+ "    2838 ms  redis       CLIENT_KILL\n"
			+ "    3925 ms  instance-1  BLACK_HOLE for 3645 ms\n"
			+ "    4845 ms  instance-0  CUT for 896 ms\n"
			+ "    5184 ms  instance-2  CONSUMER_RESTART for 1259 ms\n"
			+ "    5528 ms  redis       CLIENT_PAUSE for 2207 ms\n"
			+ "    6251 ms  instance-0  BLACK_HOLE for 1824 ms\n"
			+ "    6641 ms  instance-2  RESET_AFTER_FORWARD\n"
			+ "    8701 ms  instance-2  RESET_AFTER_FORWARD\n"
			+ "    9566 ms  instance-1  RESET_AFTER_FORWARD\n"
			+ "   10042 ms  instance-0  RESET_AFTER_FORWARD\n"
			+ "   10523 ms  instance-2  BLACK_HOLE for 2318 ms\n"
			+ "   11107 ms  instance-1  CUT for 2751 ms\n"
			+ "   12211 ms  instance-0  CUT for 467 ms\n"
			+ "   12434 ms  redis       CLIENT_KILL\n";

	private static final String SENTINEL_7 =
			"Fault timeline of seed 7 (3 faults):\n"
			+ "    2036 ms  redis       FAILOVER\n"
			+ "   10521 ms  redis       PRIMARY_KILL for 4380 ms\n"
			+ "   24155 ms  redis       FAILOVER\n";

}
