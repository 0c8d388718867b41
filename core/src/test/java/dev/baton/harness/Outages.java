package dev.baton.harness;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * When each instance could not reach Redis, or not in time: the faults of its own link (cut,
 * black hole, latency), the faults of the server that every instance suffers, and the stalls of
 * the harness's JVM, in which Baton's own threads stood still. What a duplicate needs by the docs
 * is measured against it: Redis out of reach for a good part of a visibility timeout.
 */
final class Outages {

	/**
	 * How long after a promotion a delivery may have been claimed and still be lost with the old
	 * primary: a claim sent just before it, answered just after.
	 */
	static final long CLAIM_SLACK_MILLIS = 200;

	/**
	 * Outages at most this far apart are one stretch: a call that failed in the first is retried
	 * within a tenth of a third of the visibility timeout, and its round trip needs the link for
	 * longer than such a gap.
	 */
	static final long JOINED_GAP_MILLIS = 200;

	private final List<Window> windows;

	Outages(List<Window> windows) {
		this.windows = List.copyOf(windows);
	}

	/**
	 * The longest stretch, within {@code [fromMillis, toMillis]}, in which the instance was out of
	 * reach without a break for a delivery that may have been claimed as early as
	 * {@code claimedAtMillis}, its own and the server's windows joined where they overlap or are at
	 * most {@link #JOINED_GAP_MILLIS} apart.
	 */
	long longest(int instance, long fromMillis, long toMillis, long claimedAtMillis) {
		List<long[]> clipped = new ArrayList<>();
		for (Window window : this.windows) {
			if (!window.hits(instance) || (window.lostClaimsOnly() && claimedAtMillis > window.start() + CLAIM_SLACK_MILLIS)) {
				continue;
			}
			long start = Math.max(fromMillis, window.start());
			long end = Math.min(toMillis, window.end());
			if (start < end) {
				clipped.add(new long[] { start, end });
			}
		}
		clipped.sort(Comparator.comparingLong((window) -> window[0]));
		long longest = 0;
		long start = Long.MIN_VALUE;
		long end = Long.MIN_VALUE;
		for (long[] window : clipped) {
			if (window[0] > end + JOINED_GAP_MILLIS) {
				start = window[0];
			}
			end = Math.max(end, window[1]);
			longest = Math.max(longest, end - start);
		}
		return longest;
	}

	/**
	 * From when the instance was in reach without a break until {@code toMillis}: the end of the
	 * last window that hits it within {@code [fromMillis, toMillis]}, or {@code fromMillis}; may be
	 * after {@code toMillis} when a window outlasts it.
	 */
	long inReachSince(int instance, long fromMillis, long toMillis) {
		long since = fromMillis;
		for (Window window : this.windows) {
			if (window.hits(instance) && window.start() <= toMillis && window.end() >= fromMillis) {
				since = Math.max(since, window.end());
			}
		}
		return since;
	}

	/**
	 * Whether the instance reached the primary of {@code node} without a break in
	 * {@code [fromMillis, toMillis]}: no window hit both.
	 * @param node the Redis Cluster primary, by index, or -1 on a topology with one server
	 */
	boolean inReachThroughout(int instance, int node, long fromMillis, long toMillis) {
		return this.windows.stream()
			.noneMatch((window) -> window.hits(instance) && window.hitsNode(node) && window.start() <= toMillis
					&& window.end() >= fromMillis);
	}

	/**
	 * Since when the instance could not reach the primary of {@code node}, at {@code atMillis}: the
	 * earliest start of the windows under way then that hit both, or -1 if it could.
	 */
	long outOfReachSince(int instance, int node, long atMillis) {
		return this.windows.stream()
			.filter((window) -> window.hits(instance) && window.hitsNode(node) && window.start() <= atMillis
					&& window.end() >= atMillis)
			.mapToLong(Window::start)
			.min()
			.orElse(-1);
	}

	/**
	 * A time Redis was out of reach.
	 * @param instance the instance whose link it hit, or -1 for every instance
	 * @param start ms from the run's start
	 * @param end ms from the run's start
	 * @param lostClaimsOnly whether it explains only deliveries claimed before it began: a
	 * failover's promotion, from which on Baton holds its calls until the switch, so that what it
	 * claims then is not lost and its extensions wait no longer than they can afford
	 * @param node the one Redis Cluster primary out of reach, the others answering (a paused one),
	 * or -1 for all of Redis; the checks of one task's deliveries count it against every task but
	 * {@link ProgressChecks}
	 */
	record Window(int instance, long start, long end, boolean lostClaimsOnly, int node) {

		Window(int instance, long start, long end) {
			this(instance, start, end, false, -1);
		}

		Window(int instance, long start, long end, boolean lostClaimsOnly) {
			this(instance, start, end, lostClaimsOnly, -1);
		}

		boolean hits(int other) {
			return this.instance == -1 || this.instance == other;
		}

		/** Whether it kept the primary of {@code other} (or the only server, -1) out of reach. */
		boolean hitsNode(int other) {
			return this.node == -1 || this.node == other;
		}

	}

}
