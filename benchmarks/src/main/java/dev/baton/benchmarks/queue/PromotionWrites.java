package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.baton.benchmarks.support.Metrics;
import dev.baton.test.LocalRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Samples the replication offsets of a Sentinel set's two data nodes around a manual failover,
 * every 10 ms: how many bytes of writes the old primary took that the promoted replica never got
 * (they are lost when the old primary is demoted), and how many of them came after the promotion
 * (writes that followed the old primary too long) rather than before it (replication lag).
 */
final class PromotionWrites implements AutoCloseable {

	private final RedisClient client = RedisClient.create();

	private final RedisCommands<String, String> oldPrimary;

	private final RedisCommands<String, String> replica;

	private final Thread sampler;

	/** The old primary's offset when the replica was first seen as a primary, -1 before. */
	private volatile long oldAtPromotion = -1;

	/** The old primary's last offset while it was still a primary. */
	private volatile long oldFinal = -1;

	/** The offset the replica was promoted at: what it has of the old primary's writes. */
	private volatile long promotedAt = -1;

	PromotionWrites(LocalRedisServer oldPrimary, LocalRedisServer replica, Duration sampleFor) {
		this.oldPrimary = this.client.connect(RedisURI.create(oldPrimary.host(), oldPrimary.port())).sync();
		this.replica = this.client.connect(RedisURI.create(replica.host(), replica.port())).sync();
		this.sampler = new Thread(() -> sample(System.nanoTime() + sampleFor.toNanos()), "promotion-writes");
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	private void sample(long until) {
		boolean oldIsPrimary = true;
		while (System.nanoTime() < until) {
			try {
				if (oldIsPrimary) {
					String old = this.oldPrimary.info("replication");
					oldIsPrimary = old.contains("role:master");
					if (oldIsPrimary) {
						this.oldFinal = field(old, "master_repl_offset");
					}
				}
				String promoted = this.replica.info("replication");
				if (promoted.contains("role:master") && this.promotedAt < 0) {
					this.promotedAt = field(promoted, "second_repl_offset") - 1;
					this.oldAtPromotion = this.oldFinal;
				}
				TimeUnit.MILLISECONDS.sleep(10);
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				// A node changing roles may drop the connection; Lettuce reconnects.
			}
		}
	}

	private static long field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + ":")) {
				return Long.parseLong(line.substring(name.length() + 1).trim());
			}
		}
		return -1;
	}

	/** Adds what was sampled to the run's metrics, once the sampling ended. */
	Metrics addTo(Metrics metrics) throws InterruptedException {
		this.sampler.join();
		if (this.promotedAt < 0) {
			return metrics;
		}
		return metrics.put("old primary bytes lost", Math.max(0, this.oldFinal - this.promotedAt))
			.put("of them after promotion", Math.max(0, this.oldFinal - this.oldAtPromotion));
	}

	@Override
	public void close() {
		this.sampler.interrupt();
		this.client.shutdown();
	}

}
