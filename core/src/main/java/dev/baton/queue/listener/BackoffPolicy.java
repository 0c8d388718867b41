package dev.baton.queue.listener;

import java.time.Duration;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The delay between a failed attempt and the next: {@code initial * multiplier^(attempt - 1)},
 * capped at {@code max}; Spring's {@link ExponentialBackOff} with these values.
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
		BackOffExecution execution = toBackOff(Integer.MAX_VALUE).start();
		long delay = 0;
		for (int retry = 1; retry <= attempt; retry++) {
			delay = execution.nextBackOff();
		}
		return Duration.ofMillis(delay);
	}

	/**
	 * This policy as Spring's back-off for a task of at most {@code maxAttempts} attempts: one
	 * delay per retry, then {@link BackOffExecution#STOP}.
	 * @param maxAttempts the most attempts, the first included
	 * @return the back-off
	 */
	public BackOff toBackOff(int maxAttempts) {
		ExponentialBackOff backOff = new ExponentialBackOff(this.initial.toMillis(), this.multiplier);
		backOff.setMaxInterval(this.max.toMillis());
		backOff.setMaxAttempts(maxAttempts - 1L);
		return backOff;
	}

}
