package dev.baton.benchmarks.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HandoffBoardTests {

	@Test
	void measuresHandOffOnlyBetweenDifferentOwners() {
		try (HandoffBoard board = HandoffBoard.create()) {
			assertThat(board.acquired(1, System.nanoTime())).isEqualTo(-1);
			board.releasing(1);
			assertThat(board.acquired(1, System.nanoTime())).isEqualTo(-1);
			long beforeRelease = System.nanoTime();
			board.releasing(1);
			long afterRelease = System.nanoTime();
			long acquiredAt = afterRelease + 1_000_000;
			assertThat(board.acquired(2, acquiredAt)).isBetween(acquiredAt - afterRelease, acquiredAt - beforeRelease);
			assertThat(board.violations()).isZero();
		}
	}

	@Test
	void countsTwoOwnersInsideAtOnceAcrossMappings() {
		try (HandoffBoard board = HandoffBoard.create(); HandoffBoard otherJvm = HandoffBoard.open(board.file())) {
			board.acquired(1, System.nanoTime());
			otherJvm.acquired(1001, System.nanoTime());
			assertThat(board.violations()).isEqualTo(1);
			board.reset();
			assertThat(otherJvm.violations()).isZero();
		}
	}

}
