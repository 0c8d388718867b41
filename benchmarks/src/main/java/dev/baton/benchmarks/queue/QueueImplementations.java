package dev.baton.benchmarks.queue;

import java.util.List;

/** Every delayed-queue implementation the harness knows, in the order of the result tables. */
public final class QueueImplementations {

	private QueueImplementations() {
	}

	public static List<QueueImplementation> all() {
		return List.of(new QueueImplementation("baton", "scheduleAll", BatonQueueClient::new),
				new QueueImplementation("baton-prefetch", "scheduleAll",
						BatonQueueClient.withPrefetch(BatonQueueClient.PREFETCH)),
				new QueueImplementation("redisson", "offerAsync, 1000 in flight", RedissonQueueClient::new));
	}

}
