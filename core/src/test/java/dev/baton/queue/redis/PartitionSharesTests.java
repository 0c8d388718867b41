package dev.baton.queue.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionSharesTests {

	@Test
	void evenlySpreadEntriesAreSharedFromTheFirstFewScores() {
		List<List<Object>> scores = List.of(List.of("1", "4"), List.of("2", "5"), List.of("3", "6"));

		assertThat(PartitionShares.of(scores, 2, 3, false)).containsExactly(1, 1, 1);
		assertThat(PartitionShares.of(List.of(List.of("9", "6"), List.of("8", "5"), List.of("7", "4")), 2, 3, true))
			.containsExactly(1, 1, 1);
	}

	@Test
	void aPartitionThatMayHoldMoreOfTheFirstLeavesTheSharesOpen() {
		List<List<Object>> scores = List.of(List.of("1", "2"), List.of("8", "9"), List.of("7"));

		assertThat(PartitionShares.of(scores, 2, 3, false)).isNull();
		assertThat(PartitionShares.of(List.of(List.of("1", "2", "3"), List.of("8", "9", "10"), List.of("7")), 3, 3,
				false))
			.containsExactly(3, 0, 0);
	}

	@Test
	void partitionsWithNoMoreEntriesTellTheSharesWhateverTheirCount() {
		assertThat(PartitionShares.of(List.of(List.of("5"), List.of(), List.of("1")), 2, 3, false))
			.containsExactly(1, 0, 1);
	}

	@Test
	void firstAskIsTwiceAnEvenShareAndAtMostMax() {
		assertThat(PartitionShares.firstAsk(200, 64)).isEqualTo(8);
		assertThat(PartitionShares.firstAsk(200, 2)).isEqualTo(200);
		assertThat(PartitionShares.firstAsk(1, 1024)).isEqualTo(1);
	}

}
