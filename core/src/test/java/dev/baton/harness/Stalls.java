package dev.baton.harness;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Pauses of the harness's own JVM (a garbage collection, or a machine whose cores other builds
 * keep busy): a thread that should wake every 20 ms records every time it woke much later. Time
 * the whole JVM stood still is not Baton's: a call's duration is measured without it, since
 * Baton's own timers stood still too.
 */
final class Stalls {

	private static final long TICK_MILLIS = 20;

	/** Lateness of a tick below this is scheduling noise, not a stall. */
	private static final long NOISE_MILLIS = 100;

	private final Timeline timeline;

	private final List<long[]> stalls = new CopyOnWriteArrayList<>();

	private volatile boolean watching = true;

	Stalls(Timeline timeline) {
		this.timeline = timeline;
	}

	void start() {
		Thread ticker = new Thread(() -> {
			while (this.watching) {
				long before = this.timeline.now();
				Pause.millis(TICK_MILLIS);
				long after = this.timeline.now();
				if (after - before > TICK_MILLIS + NOISE_MILLIS) {
					this.stalls.add(new long[] { before + TICK_MILLIS, after });
					this.timeline.record(Timeline.FAULT, "the harness JVM stood still for "
							+ (after - before - TICK_MILLIS) + " ms (not injected)");
				}
			}
		}, "harness-stalls");
		ticker.setDaemon(true);
		ticker.start();
	}

	void stop() {
		this.watching = false;
	}

	/** How long the JVM stood still between two instants. */
	long within(long fromMillis, long toMillis) {
		return this.stalls.stream()
			.mapToLong((stall) -> Math.max(0, Math.min(toMillis, stall[1]) - Math.max(fromMillis, stall[0])))
			.sum();
	}

	/** Each stall, {start, end} in ms from the run's start. */
	List<long[]> windows() {
		return List.copyOf(this.stalls);
	}

	long longest() {
		return this.stalls.stream().mapToLong((stall) -> stall[1] - stall[0]).max().orElse(0);
	}

	int count() {
		return this.stalls.size();
	}

}
