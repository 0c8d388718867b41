package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

/**
 * A WARN line at most once per period, the others at DEBUG, and the next WARN says how many
 * there were: for events that come in floods (a deploy that cannot read old payloads) and
 * must still show up in a log that keeps only WARN.
 */
public final class ThrottledLog {

	private final Log logger;

	private final long periodNanos;

	private final AtomicLong nextWarnAt = new AtomicLong(System.nanoTime());

	private final AtomicLong suppressed = new AtomicLong();

	/**
	 * Create a throttled log.
	 * @param logger where to log
	 * @param period the shortest time between two WARN lines
	 */
	public ThrottledLog(Log logger, Duration period) {
		this.logger = logger;
		this.periodNanos = period.toNanos();
	}

	/**
	 * Logs at WARN if the period since the last WARN has passed, else at DEBUG.
	 * @param message the message, built only if logged
	 */
	public void log(Supplier<String> message) {
		long now = System.nanoTime();
		long next = this.nextWarnAt.get();
		if (now - next >= 0 && this.nextWarnAt.compareAndSet(next, now + this.periodNanos)) {
			long before = this.suppressed.getAndSet(0);
			this.logger.warn(message.get() + ((before > 0) ? " (and " + before + " more like it since the last "
					+ "warning, logged at DEBUG)" : ""));
			return;
		}
		this.suppressed.incrementAndGet();
		if (this.logger.isDebugEnabled()) {
			this.logger.debug(message.get());
		}
	}

}
