package dev.baton.queue.listener;

import org.jspecify.annotations.Nullable;

/** A claimed delivery until it is settled: its visibility deadline and what runs it. */
final class HeldDelivery {

	/** How long the delivery stays invisible, as {@link System#nanoTime()}. */
	volatile long visibleUntil;

	/** The thread running its handler, if one does. */
	volatile @Nullable Thread handler;

	/** Whether stopping handed it back or left it to expire: its handler's outcome is not settled. */
	volatile boolean abandoned;

	/** Whether Redis answered that the delivery is stale: its task is no longer this instance's. */
	volatile boolean lost;

	/**
	 * Whether its permit went back while its acknowledgement waits for a partition that fails:
	 * it takes no room from claims of the others.
	 */
	boolean permitLent;

	/** When it was claimed, as {@link System#nanoTime()}. */
	final long claimedAt;

	/** When its handler started, as {@link System#nanoTime()}, if it did. */
	volatile long startedAt;

	HeldDelivery(long visibleUntil, long claimedAt) {
		this.visibleUntil = visibleUntil;
		this.claimedAt = claimedAt;
	}

	/** Redis extensions never shorten the deadline, nor may the local view of it. */
	synchronized void visibleAtLeastUntil(long nanos) {
		if (nanos - this.visibleUntil > 0) {
			this.visibleUntil = nanos;
		}
	}

}
