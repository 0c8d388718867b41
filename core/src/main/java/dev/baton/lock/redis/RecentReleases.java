package dev.baton.lock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The locks this JVM released in Redis in the last few seconds, by owner: after a failover, the
 * new primary may still hold those that the old primary took and lost, each for the rest of its
 * lease. Bounded in time and in count, so that a busy JVM keeps only the latest.
 */
final class RecentReleases {

	static final long KEPT_NANOS = TimeUnit.SECONDS.toNanos(15);

	static final int MAX_KEPT = 10_000;

	private final ConcurrentLinkedDeque<Release> releases = new ConcurrentLinkedDeque<>();

	private final AtomicInteger size = new AtomicInteger();

	void add(LockKeys keys, String owner) {
		long now = System.nanoTime();
		this.releases.addLast(new Release(keys, owner, now));
		if (this.size.incrementAndGet() > MAX_KEPT) {
			drop();
		}
		while (isOld(this.releases.peekFirst(), now)) {
			drop();
		}
	}

	/** The releases of the last {@link #KEPT_NANOS}, oldest first. */
	List<Release> recent() {
		long now = System.nanoTime();
		List<Release> recent = new ArrayList<>();
		for (Release release : this.releases) {
			if (!isOld(release, now)) {
				recent.add(release);
			}
		}
		return recent;
	}

	private void drop() {
		if (this.releases.pollFirst() != null) {
			this.size.decrementAndGet();
		}
	}

	private static boolean isOld(Release release, long now) {
		return release != null && now - release.at() > KEPT_NANOS;
	}

	/** A lock that {@code owner} released at {@code at} ({@link System#nanoTime()}). */
	record Release(LockKeys keys, String owner, long at) {

	}

}
