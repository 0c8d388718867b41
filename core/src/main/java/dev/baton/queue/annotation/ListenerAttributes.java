package dev.baton.queue.annotation;

import java.time.Duration;

import dev.baton.internal.Durations;

/**
 * Parsers of the {@code @DelayedTask} attribute values, after placeholder resolution; each throws
 * {@link IllegalArgumentException} saying what is wrong.
 */
final class ListenerAttributes {

	private ListenerAttributes() {
	}

	static Integer attempts(String value) {
		int attempts = Integer.parseInt(value);
		if (attempts < 1) {
			throw new IllegalArgumentException("must be at least 1");
		}
		return attempts;
	}

	static Double multiplier(String value) {
		double multiplier = Double.parseDouble(value);
		if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
			throw new IllegalArgumentException("must be a number of at least 1");
		}
		return multiplier;
	}

	static Duration duration(String value) {
		Duration duration = Durations.parse(value);
		if (duration.isNegative()) {
			throw new IllegalArgumentException("must not be negative");
		}
		return duration;
	}

	static Duration positiveDuration(String value) {
		Duration duration = duration(value);
		if (duration.isZero()) {
			throw new IllegalArgumentException("must be positive");
		}
		return duration;
	}

}
