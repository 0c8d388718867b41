package dev.baton.queue.listener;

/**
 * How many tasks may wait in this instance beyond the concurrency: as many as the handlers are
 * expected to start within the claim-ahead time, at most the prefetch; none before the first run
 * was measured.
 */
final class ClaimAheadEstimate {

	private final ListenerSettings settings;

	private final int concurrency;

	private final HeldDeliveries held;

	/**
	 * A moving average of how long the handler takes, in nanoseconds, 0 before the first run.
	 * Workers update it without a lock: a lost update only delays the average by one run.
	 */
	private volatile long handlingNanos;

	ClaimAheadEstimate(ListenerSettings settings, int concurrency, HeldDeliveries held) {
		this.settings = settings;
		this.concurrency = concurrency;
		this.held = held;
	}

	/**
	 * The tasks that may be claimed ahead now. A handler running longer than the average so far
	 * counts with its time already spent: handlers that slow down shrink the claim-ahead at once,
	 * not only once the slow runs end and move the average.
	 */
	int tasks() {
		long budget = this.settings.claimAhead().toNanos();
		if (budget == 0) {
			return this.settings.prefetch();
		}
		long handling = Math.max(this.handlingNanos, this.held.longestRunningNanos());
		if (handling == 0) {
			return 0;
		}
		double startable = (double) this.concurrency * budget / handling;
		return (int) Math.min(this.settings.prefetch(), startable);
	}

	/** Records how long a handler ran. */
	void record(long nanos) {
		long average = this.handlingNanos;
		this.handlingNanos = Math.max(1, (average == 0) ? nanos : average + (nanos - average) / 8);
	}

}
