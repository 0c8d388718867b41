package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueStats;

/**
 * The queue invariants, after healing: once the queue has drained, every accepted task was
 * handled or dead-lettered. Duplicates are counted and reported, not failed, in this slice.
 */
final class QueueChecks {

	static final String NOT_LOST = "At least once: an accepted task is handled or dead-lettered";

	static final String BOUNDED = "queue calls give up after baton.queue.command-timeout";

	/** As many as one read may ask for; a run dead-letters far fewer. */
	private static final int MAX_DEAD_LETTERS = DelayQueue.MAX_PEEK;

	private final TaskLedger ledger;

	private final List<long[]> kills;

	private final Violations violations;

	private final Timeline timeline;

	private int lostWithRedis;

	private QueueStats lastStats;

	private Set<String> deadLettered = Set.of();

	QueueChecks(TaskLedger ledger, List<long[]> kills, Violations violations, Timeline timeline) {
		this.ledger = ledger;
		this.kills = kills;
		this.violations = violations;
		this.timeline = timeline;
	}

	/** Waits until nothing is scheduled, due or in flight, at most {@code atMost}, and reads the dead letters. */
	void drain(DelayQueue<HarnessTask> queue, Duration atMost) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		do {
			try {
				this.lastStats = queue.stats();
				this.deadLettered = queue.deadLetters(MAX_DEAD_LETTERS).stream().map(DeadLetter::id)
					.collect(Collectors.toSet());
				if (this.lastStats.scheduled() + this.lastStats.due() + this.lastStats.inFlight() == 0) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// Redis still restarting: look again.
			}
			Thread.sleep(200);
		}
		while (System.nanoTime() < deadline);
		this.violations.add("queue", NOT_LOST, "the queue did not drain within " + atMost.toSeconds()
				+ " s after healing: " + this.lastStats);
	}

	void check() {
		this.ledger.accepted.forEach((id, acceptedAt) -> {
			if (this.ledger.handled(id) || this.deadLettered.contains(id)) {
				return;
			}
			if (this.kills.stream().anyMatch((kill) -> kill[0] >= acceptedAt)) {
				// Durability is Redis's durability: a kill without persistence loses what it held.
				this.lostWithRedis++;
				this.timeline.record(id, "lost with Redis's data (killed after it was accepted)");
				return;
			}
			this.violations.add(acceptedAt, id, NOT_LOST,
					"task accepted at " + acceptedAt + " ms was neither handled nor dead-lettered, "
							+ (this.ledger.runs.containsKey(id) ? this.ledger.runs.get(id) : 0) + " failed runs");
		});
	}

	String summary() {
		Map<String, Integer> twice = this.ledger.successes.entrySet().stream()
			.filter((entry) -> entry.getValue().get() > 1)
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().get()));
		int extra = twice.values().stream().mapToInt((runs) -> runs - 1).sum();
		long handledUnknown = this.ledger.unknown.keySet().stream().filter(this.ledger::handled).count();
		return this.ledger.accepted.size() + " tasks accepted, " + this.ledger.successes.size() + " handled, "
				+ this.deadLettered.size() + " dead-lettered, " + this.lostWithRedis
				+ " lost with a Redis kill (documented), " + twice.size() + " handled more than once (" + extra
				+ " extra runs), " + this.ledger.unknown.size() + " with unknown scheduling outcome (" + handledUnknown
				+ " of them handled)";
	}

}
