package dev.baton.queue;

import java.time.Duration;

/**
 * Which dead letters a queue deletes for good: the oldest beyond {@code maxCount}, and those older
 * than {@code maxAge}. Claims from the queue apply it (an idle consumer claims at least every
 * {@code max-idle-poll}), at most 1,000 deletions per claim, and every deletion is counted
 * ({@code baton.queue.dead-letters.deleted}) and logged. The {@linkplain #DEFAULT default} deletes
 * nothing: a dead letter stays until it is redriven or purged.
 *
 * @param maxCount the most dead letters kept, at least 1; {@link Integer#MAX_VALUE} for no limit
 * @param maxAge how long a dead letter is kept, positive; {@link DelayQueue#MAX_DELAY} or more for
 * no limit
 */
public record DeadLetterRetention(int maxCount, Duration maxAge) {

	/** Keeps every dead letter: no count and no age limit. */
	public static final DeadLetterRetention DEFAULT = new DeadLetterRetention(Integer.MAX_VALUE, DelayQueue.MAX_DELAY);

	/**
	 * Validate the retention.
	 * @throws IllegalArgumentException if the count is below 1 or the age not positive
	 */
	public DeadLetterRetention {
		if (maxCount < 1) {
			throw new IllegalArgumentException("Dead letter retention max-count must be at least 1, was " + maxCount);
		}
		if (maxAge == null || maxAge.toMillis() < 1) {
			throw new IllegalArgumentException("Dead letter retention max-age must be at least 1ms, was " + maxAge);
		}
	}

	/**
	 * Whether this retention keeps every dead letter, as the default does.
	 * @return {@code true} if it has neither a count nor an age limit
	 */
	public boolean keepsAll() {
		return this.maxCount == Integer.MAX_VALUE && this.maxAge.compareTo(DelayQueue.MAX_DELAY) >= 0;
	}

}
