package dev.baton.benchmarks.queue;

import java.util.List;

/** Every delayed-queue implementation the harness knows, in the order of the result tables. */
public final class QueueImplementations {

	private QueueImplementations() {
	}

	public static List<QueueImplementation> all() {
		return List.of(new QueueImplementation("baton", "scheduleAll", BatonQueueClient::new),
				// The defaults before claim-ahead: no task claimed beyond the free handlers
				new QueueImplementation("baton-no-prefetch", "scheduleAll",
						BatonQueueClient.withSettings("baton.queue.prefetch=0")),
				new QueueImplementation("redisson", "offerAsync, 1000 in flight", RedissonQueueClient::new));
	}

}
