package dev.baton.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A resource without fencing: per lock name, the holders inside their critical section. A second
 * holder entering is an overlap, kept for the checker, which decides at the end (when every loss
 * report has had time to arrive) whether the docs excuse it.
 */
final class UnfencedCounter {

	private final Map<String, Set<Hold>> inside = new HashMap<>();

	private final List<Overlap> overlaps = new ArrayList<>();

	private final Timeline timeline;

	UnfencedCounter(Timeline timeline) {
		this.timeline = timeline;
	}

	synchronized void enter(Hold hold) {
		Set<Hold> holders = this.inside.computeIfAbsent(hold.name, (name) -> new LinkedHashSet<>());
		if (!holders.isEmpty()) {
			List<Hold> together = new ArrayList<>(holders);
			together.add(hold);
			this.overlaps.add(new Overlap(this.timeline.now(), hold.name, together));
			this.timeline.record(hold.name, "OVERLAP: " + hold.holder + " entered while " + holders + " inside");
		}
		holders.add(hold);
	}

	synchronized void exit(Hold hold) {
		this.inside.get(hold.name).remove(hold);
	}

	synchronized List<Overlap> overlaps() {
		return List.copyOf(this.overlaps);
	}

	/**
	 * Two or more holders inside at once.
	 * @param atMillis when the last of them entered
	 * @param name the lock name
	 * @param holders the holders, the one that entered last at the end
	 */
	record Overlap(long atMillis, String name, List<Hold> holders) {

	}

}
