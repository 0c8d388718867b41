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
			assertThat(schedule.track(-1)).filteredOn((fault) -> fault.kind() == FaultKind.REDIS_KILL)
				.hasSizeLessThanOrEqualTo(1);
		});
	}

	@Test
	void sentinelFaultsAreFailoversAndPrimaryKillsOfTheServerSpacedForAReplicaToCatchUp() {
		LongStream.range(0, 200).mapToObj((seed) -> FaultSchedule.generateSentinel(seed, 25_000)).forEach((schedule) -> {
			List<Fault> faults = schedule.track(-1);
			assertThat(faults).isNotEmpty()
				.allSatisfy((fault) -> assertThat(fault.kind()).isIn(FaultKind.FAILOVER, FaultKind.PRIMARY_KILL))
				.allSatisfy((fault) -> assertThat(fault.endMillis()).isLessThan(25_000));
			for (int i = 1; i < faults.size(); i++) {
				assertThat(faults.get(i).atMillis()).isGreaterThanOrEqualTo(faults.get(i - 1).endMillis() + 7000);
			}
			assertThat(schedule.track(0)).isEmpty();
		});
		assertThat(FaultSchedule.generateSentinel(27, 25_000).describe())
			.isEqualTo(FaultSchedule.generateSentinel(27, 25_000).describe());
	}

}
