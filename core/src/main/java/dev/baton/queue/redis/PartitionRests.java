package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partitions of a queue whose last claim failed, which claims leave out for a while: a
 * partition that does not answer (its primary frozen, failing over) would otherwise hold up every
 * claim for the whole round wait, and with it the partitions that answer. The rest grows with the
 * failures in a row, a round wait per failure up to {@link #MAX_ROUNDS}, so that a partition that
 * comes back is asked again soon.
 */
final class PartitionRests {

	/** The longest rest, in round waits. */
	static final int MAX_ROUNDS = 5;

	private final Duration roundWait;

	private final Map<QueueKeys, Rest> rests = new ConcurrentHashMap<>();

	PartitionRests(Duration roundWait) {
		this.roundWait = roundWait;
	}

	void failed(QueueKeys partition) {
		long now = System.nanoTime();
		this.rests.merge(partition, new Rest(1, now + this.roundWait.toNanos()), (before, ignored) -> {
			int failures = before.failures() + 1;
			return new Rest(failures, now + this.roundWait.toNanos() * Math.min(failures, MAX_ROUNDS));
		});
	}

	void answered(QueueKeys partition) {
		this.rests.remove(partition);
	}

	/** The partitions not resting, in the given order; all of them if every one rests. */
	List<QueueKeys> askable(List<QueueKeys> partitions) {
		long now = System.nanoTime();
		List<QueueKeys> askable = partitions.stream().filter((partition) -> !resting(partition, now)).toList();
		return askable.isEmpty() ? partitions : askable;
	}

	/** Milliseconds until the first resting partition may be asked again, or -1 if none rests. */
	long nextAskIn() {
		long now = System.nanoTime();
		return this.rests.values()
			.stream()
			.mapToLong((rest) -> Math.max(0, Duration.ofNanos(rest.until() - now).toMillis()))
			.min()
			.orElse(-1);
	}

	private boolean resting(QueueKeys partition, long now) {
		Rest rest = this.rests.get(partition);
		return rest != null && rest.until() - now > 0;
	}

	private record Rest(int failures, long until) {
	}

}
