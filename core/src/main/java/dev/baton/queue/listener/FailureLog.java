package dev.baton.queue.listener;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;

/**
 * Logs handler failures at WARN, each kind of failure (exception class and message) with its
 * stack trace at most once per period: during an outage every task fails the same way, and a
 * thousand identical stack traces a second bury everything else. The repeats within a period go
 * to DEBUG without the stack trace, and the next WARN of that kind says how many there were.
 */
final class FailureLog {

	/** Kinds remembered at most; failures whose messages differ per task would otherwise pile up. */
	private static final int MAX_KINDS = 1000;

	private final Log logger;

	private final long periodNanos;

	private final LongSupplier nanoTime;

	/** By kind: when its stack trace was last logged, and how many repeats were not. */
	private final Map<String, long[]> lastLogged = new HashMap<>();

	FailureLog(Log logger, Duration period) {
		this(logger, period, System::nanoTime);
	}

	FailureLog(Log logger, Duration period, LongSupplier nanoTime) {
		this.logger = logger;
		this.periodNanos = period.toNanos();
		this.nanoTime = nanoTime;
	}

	void warn(String message, Throwable failure) {
		String kind = failure.getClass().getName() + ": " + failure.getMessage();
		long repeats = repeatsBeforeThis(kind);
		if (repeats < 0) {
			if (this.logger.isDebugEnabled()) {
				this.logger.debug(message + " (" + kind + "; stack trace logged at WARN before)");
			}
		}
		else {
			this.logger.warn((repeats > 0) ? message + " (and " + repeats + " more failure(s) like it, logged at "
					+ "DEBUG, since its last stack trace)" : message, failure);
		}
	}

	/**
	 * How many repeats of the kind were not logged since its stack trace last was, or -1 if this
	 * one is a repeat within the period too.
	 */
	private synchronized long repeatsBeforeThis(String kind) {
		long now = this.nanoTime.getAsLong();
		long[] last = this.lastLogged.get(kind);
		if (last != null && now - last[0] < this.periodNanos) {
			last[1]++;
			return -1;
		}
		if (last == null && this.lastLogged.size() >= MAX_KINDS) {
			this.lastLogged.clear();
		}
		this.lastLogged.put(kind, new long[] { now, 0 });
		return (last != null) ? last[1] : 0;
	}

}
