package dev.baton.queue.redis;

import java.time.Duration;
import java.util.function.Supplier;

import dev.baton.queue.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * Queue stats read again only when older than a maximum age, so that gauges read together do
 * not each cost a round trip.
 */
final class CachedStats implements Supplier<QueueStats> {

	private final Supplier<QueueStats> source;

	private final long maxAgeNanos;

	private @Nullable QueueStats stats;

	private long readAt;

	CachedStats(Supplier<QueueStats> source, Duration maxAge) {
		this.source = source;
		this.maxAgeNanos = maxAge.toNanos();
	}

	@Override
	public synchronized QueueStats get() {
		long now = System.nanoTime();
		QueueStats stats = this.stats;
		if (stats == null || now - this.readAt > this.maxAgeNanos) {
			stats = this.source.get();
			this.stats = stats;
			this.readAt = now;
		}
		return stats;
	}

}
