package dev.baton.queue.listener;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ListenerSettingsTests {

	@Test
	void defaultRetriesOutlastAnOutageOfHoursAndStartSoon() {
		ListenerSettings defaults = ListenerSettings.DEFAULTS;
		Duration horizon = Duration.ZERO;
		for (int attempt = 1; attempt < defaults.maxAttempts(); attempt++) {
			horizon = horizon.plus(defaults.backoff().delayAfter(attempt));
		}

		// A task is dead-lettered only after half a day of failures, not seconds (issue 24)
		assertThat(horizon).isGreaterThanOrEqualTo(Duration.ofHours(12));
		assertThat(defaults.backoff().delayAfter(1)).isLessThanOrEqualTo(Duration.ofSeconds(1));
	}

}
