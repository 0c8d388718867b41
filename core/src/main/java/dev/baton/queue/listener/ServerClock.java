package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;

/**
 * The Redis server's clock as seen from this JVM, measured at each claim: due times are server
 * times, so lateness is measured on the server's clock, not on a skewed local one.
 */
final class ServerClock {

	/** How far the server's clock is ahead of this JVM's, as of the last claim. */
	private volatile Duration ahead = Duration.ZERO;

	/**
	 * Measures the skew from a claim that was sent at {@code sentAt} and answered at
	 * {@code receivedAt} with the server's time.
	 * @return how far the server's clock is ahead of this JVM's
	 */
	Duration measure(Instant sentAt, Instant receivedAt, Instant serverTime) {
		// The server read its clock somewhere during the round trip: the midpoint is the best guess
		Instant midpoint = sentAt.plus(Duration.between(sentAt, receivedAt).dividedBy(2));
		Duration ahead = Duration.between(midpoint, serverTime);
		this.ahead = ahead;
		return ahead;
	}

	Instant now() {
		return Instant.now().plus(this.ahead);
	}

}
