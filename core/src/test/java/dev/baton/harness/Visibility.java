package dev.baton.harness;

import java.time.Duration;

import dev.baton.queue.listener.BackoffPolicy;
import dev.baton.queue.listener.ListenerSettings;

/**
 * The harness queue's visibility timeout, and the bounds the queue checks take from it: an
 * extension runs a third of the timeout after the last confirmed one, bounded by that third, and
 * a failed one is tried again within a tenth of it.
 * @param timeoutMillis how long a claimed delivery stays invisible without an extension
 */
record Visibility(long timeoutMillis) {

	/** Short, so that a black hole of a few seconds makes deliveries come back. */
	static final Visibility SHORT = new Visibility(3_000);

	/**
	 * Longer than a paused primary's 3 to 8 s: a failing partition then holds a delivery of its
	 * own for the whole pause, so whatever it holds up elsewhere lasts as long.
	 */
	static final Visibility PAST_A_PAUSE = new Visibility(10_000);

	/** The endpoints' prefetch: deliveries claimed ahead of a free worker. */
	static final int PREFETCH = 4;

	/** How long a stopping container waits for its handlers before it hands their tasks back. */
	static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

	/** The harness endpoints' listener settings under this timeout. */
	ListenerSettings listener() {
		return new ListenerSettings(3, new BackoffPolicy(Duration.ofMillis(100), 2.0, Duration.ofMillis(500)),
				Duration.ofMillis(this.timeoutMillis), 8, PREFETCH, Duration.ofMillis(500), SHUTDOWN_TIMEOUT);
	}

	/**
	 * The least time out of reach (without a break) in which a healthy handler's delivery can go
	 * stale: by the docs a duplicate needs Redis out of reach for about the last two thirds of the
	 * timeout, so less than a third (less 200 ms for calls that fail at a window's edge) loses no
	 * delivery.
	 */
	long minOutageMillis() {
		return this.timeoutMillis / 3 - 200;
	}

	/**
	 * How close to its deadline a held delivery is noted: a fifth of the timeout, below the least a
	 * single failed extension leaves (a third, less the retry's tenth of a third).
	 */
	long nearMillis() {
		return this.timeoutMillis / 5;
	}

	/**
	 * How long after its instance is in reach again a running handler whose task another consumer
	 * took sees {@code TaskContext.isLost()}: an extension call under way ends within its bound, a
	 * third of the timeout, and the next one follows within a tenth of that; with 400 ms of slack.
	 */
	long toldWithinMillis() {
		return this.timeoutMillis / 3 * 11 / 10 + 400;
	}

}
