package dev.baton.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Notices that this JVM stopped running for a while: a long stop-the-world pause, a {@code SIGSTOP},
 * a suspended virtual machine. While it is stopped, messages from Redis pile up unread in its sockets,
 * and when it runs again its threads may act before those messages are read. A thread that ticks
 * every {@value #TICK_MILLIS} ms tells: a tick {@value #LATE_MILLIS} ms late means the JVM did
 * not run (or was starved of CPU, which is as bad for reading messages in time). Shorter stops are
 * not noticed. A stop of {@value #LOGGED_MILLIS} ms or more is logged at WARN, for whoever looks
 * into what the application did then (a lock lost, a write refused); shorter ones come with a
 * loaded machine and are logged at DEBUG.
 */
public final class FreezeDetector implements AutoCloseable {

	/** A detector that is never started, so never notices anything: where nothing depends on it. */
	public static final FreezeDetector NONE = new FreezeDetector();

	static final long TICK_MILLIS = 10;

	static final long LATE_MILLIS = 100;

	static final long LOGGED_MILLIS = 1000;

	private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(LATE_MILLIS);

	private final Log logger;

	private volatile @Nullable ScheduledExecutorService ticks;

	private volatile long lastTick;

	/** When a tick last came late, as {@link System#nanoTime()}; meaningless while {@link #noticed} is false. */
	private volatile long lateTickAt;

	private volatile boolean noticed;

	/** A detector that logs the stops it notices to this class's logger. */
	public FreezeDetector() {
		this(LogFactory.getLog(FreezeDetector.class));
	}

	FreezeDetector(Log logger) {
		this.logger = logger;
	}

	/** Starts ticking on a platform thread of its own, until closed. */
	public void start() {
		if (this != NONE) {
			start(BatonThreads.PLATFORM.scheduled("baton-freeze-detector"));
		}
	}

	/** Starts ticking on the given thread, which nothing else must hold up, until closed. */
	synchronized void start(ScheduledExecutorService ticks) {
		if (this.ticks != null) {
			ticks.shutdown();
			return;
		}
		this.lastTick = System.nanoTime();
		ticks.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
		this.ticks = ticks;
	}

	private void tick() {
		long now = System.nanoTime();
		long late = now - this.lastTick;
		if (late > LATE_NANOS) {
			this.lateTickAt = now;
			this.noticed = true;
			log(TimeUnit.NANOSECONDS.toMillis(late));
		}
		this.lastTick = now;
	}

	/** Rare (a late tick), so the message is built whether or not it is logged. */
	private void log(long stoppedMillis) {
		if (stoppedMillis >= LOGGED_MILLIS) {
			this.logger.warn(stopped(stoppedMillis));
		}
		else {
			this.logger.debug(stopped(stoppedMillis));
		}
	}

	private static String stopped(long millis) {
		return "This JVM did not run for about " + millis + " ms (a stop-the-world pause, a suspended VM or a "
				+ "starved CPU); Baton's next writes through Redis Sentinel wait until the sentinels' messages of "
				+ "that time are read, and replies that a failover may have made stale are refused";
	}

	/**
	 * Whether this JVM may have been stopped at some time after {@code since}: a tick came late
	 * after it, or the ticks are late now (a stop that is just ending, before the ticking thread
	 * ran again).
	 * @param since a {@link System#nanoTime()}
	 * @return whether a stop may have happened since then
	 */
	public boolean frozeSince(long since) {
		ScheduledExecutorService ticks = this.ticks;
		if (ticks == null || ticks.isShutdown()) {
			return false;
		}
		return System.nanoTime() - this.lastTick > LATE_NANOS || (this.noticed && this.lateTickAt - since > 0);
	}

	@Override
	public void close() {
		ScheduledExecutorService ticks = this.ticks;
		if (ticks != null) {
			ticks.shutdownNow();
		}
	}

}
