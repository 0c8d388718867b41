package dev.baton.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DurationsTests {

	@Test
	void parsesNumbersWithUnits() {
		assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
		assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
		assertThat(Durations.parse(" 5m ")).isEqualTo(Duration.ofMinutes(5));
		assertThat(Durations.parse("2H")).isEqualTo(Duration.ofHours(2));
		assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
		assertThat(Durations.parse("250us")).isEqualTo(Duration.ofNanos(250_000));
		assertThat(Durations.parse("0")).isZero();
	}

	@Test
	void parsesIsoDurations() {
		assertThat(Durations.parse("PT30S")).isEqualTo(Duration.ofSeconds(30));
		assertThat(Durations.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
	}

	@Test
	void rejectsBareNumbersAndUnknownUnits() {
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("30"))
			.withMessageContaining("'30' has no unit");
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("30 seconds"))
			.withMessageContaining("'30 seconds' is not a duration")
			.withMessageContaining("500ms, 30s, 5m, 2h, 1d");
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("-5s"));
		assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse("-PT5S")).withMessageContaining("negative");
	}

	@Test
	void readableDurationsUseTheLargestUnitThatDividesThem() {
		assertThat(Durations.readable(Duration.ofSeconds(1))).isEqualTo("1s");
		assertThat(Durations.readable(Duration.ofMillis(1500))).isEqualTo("1500ms");
		assertThat(Durations.readable(Duration.ofMinutes(5))).isEqualTo("5m");
		assertThat(Durations.readable(Duration.ofHours(1))).isEqualTo("1h");
		assertThat(Durations.readable(Duration.ofDays(14))).isEqualTo("14d");
		assertThat(Durations.readable(Duration.ZERO)).isEqualTo("0ms");
	}

}
