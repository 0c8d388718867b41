package dev.baton.queue.listener;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * The delay between a failed attempt and the next: {@code initial * multiplier^(attempt - 1)},
 * capped at {@code max}.
 *
 * @param initial the delay after the first attempt, not negative
 * @param multiplier the factor applied after each attempt, at least 1
 * @param max the longest delay, at least {@code initial}
 */
public record BackoffPolicy(Duration initial, double multiplier, Duration max) {

	public BackoffPolicy {
		Assert.isTrue(!initial.isNegative(), () -> "Backoff initial must not be negative, got " + initial);
		Assert.isTrue(multiplier >= 1, () -> "Backoff multiplier must be at least 1, got " + multiplier);
		Assert.isTrue(max.compareTo(initial) >= 0,
				() -> "Backoff max (" + max + ") must not be less than initial (" + initial + ")");
	}

	/**
	 * The delay before the attempt after {@code attempt}.
	 * @param attempt the attempt that failed, {@code 1} for the first
	 * @return the delay
	 */
	public Duration delayAfter(int attempt) {
		double millis = this.initial.toMillis() * Math.pow(this.multiplier, attempt - 1);
		return (millis >= this.max.toMillis()) ? this.max : Duration.ofMillis((long) millis);
	}

}
