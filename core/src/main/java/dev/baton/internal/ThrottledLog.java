package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

/**
 * A line at WARN (or INFO) at most once per period, the others at DEBUG, and the next loud line
 * says how many there were: for events that come in floods (a deploy that cannot read old
 * payloads, a job skipped on every instance but one) and must still show up in a log that keeps
 * only the louder levels.
 */
public final class ThrottledLog {

	private final Log logger;

	private final long periodNanos;

	private final boolean warn;

	private final AtomicLong nextWarnAt = new AtomicLong(System.nanoTime());

	private final AtomicLong suppressed = new AtomicLong();

	private ThrottledLog(Log logger, Duration period, boolean warn) {
		this.logger = logger;
		this.periodNanos = period.toNanos();
		this.warn = warn;
	}

	/**
	 * A log whose loud lines are warnings.
	 * @param logger where to log
	 * @param period the shortest time between two WARN lines
	 * @return the log
	 */
	public static ThrottledLog warnings(Log logger, Duration period) {
		return new ThrottledLog(logger, period, true);
	}

	/**
	 * A log whose loud lines are at INFO.
	 * @param logger where to log
	 * @param period the shortest time between two INFO lines
	 * @return the log
	 */
	public static ThrottledLog infos(Log logger, Duration period) {
		return new ThrottledLog(logger, period, false);
	}

	/**
	 * Logs at the loud level if the period since the last loud line has passed, else at DEBUG.
	 * @param message the message, built only if logged
	 */
	public void log(Supplier<String> message) {
		long now = System.nanoTime();
		long next = this.nextWarnAt.get();
		if (now - next >= 0 && this.nextWarnAt.compareAndSet(next, now + this.periodNanos)) {
			long before = this.suppressed.getAndSet(0);
			String line = message.get() + ((before > 0) ? " (and " + before + " more like it since the last such "
					+ "line, logged at DEBUG)" : "");
			if (this.warn) {
				this.logger.warn(line);
			}
			else {
				this.logger.info(line);
			}
			return;
		}
		this.suppressed.incrementAndGet();
		if (this.logger.isDebugEnabled()) {
			this.logger.debug(message.get());
		}
	}

}
