package dev.baton.queue.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.queue.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * Queue stats for gauges, read again only when older than a maximum age, so that gauges read
 * together cost one round trip, and never waited for long: a scrape must not hang on an
 * unreachable Redis. A read that finds the stats stale starts one refresh in the background and
 * waits for it at most {@code patience}; meanwhile, and while refreshes fail, the last stats
 * read are served ({@code null} before the first).
 */
final class CachedStats {

	private final Supplier<QueueStats> source;

	private final long maxAgeNanos;

	private final long patienceNanos;

	private final Executor refresher;

	private volatile @Nullable QueueStats stats;

	private long triedAt;

	private @Nullable CompletableFuture<QueueStats> refresh;

	CachedStats(Supplier<QueueStats> source, Duration maxAge, Duration patience, Executor refresher) {
		this.source = source;
		this.maxAgeNanos = maxAge.toNanos();
		this.patienceNanos = patience.toNanos();
		this.refresher = refresher;
	}

	/** The latest stats, or {@code null} if none could be read yet. */
	@Nullable QueueStats get() {
		CompletableFuture<QueueStats> started = startRefreshIfStale();
		if (started != null) {
			try {
				return started.get(this.patienceNanos, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Exception ex) {
				// still running or failed: serve what was read before
			}
		}
		return this.stats;
	}

	private synchronized @Nullable CompletableFuture<QueueStats> startRefreshIfStale() {
		long now = System.nanoTime();
		boolean stale = this.triedAt == 0 || now - this.triedAt > this.maxAgeNanos;
		if (!stale || (this.refresh != null && !this.refresh.isDone())) {
			return null;
		}
		this.triedAt = now;
		CompletableFuture<QueueStats> refresh = CompletableFuture.supplyAsync(this.source, this.refresher);
		refresh.thenAccept((read) -> this.stats = read);
		this.refresh = refresh;
		return refresh;
	}

}
