package dev.baton.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What happened during a run, in milliseconds from its start: faults applied and healed, locks
 * granted, writes refused, losses reported, tasks handled. A violation is printed with the
 * events around it, so that a seed's failure can be read without replaying it.
 */
final class Timeline {

	/** Events kept; beyond this the oldest detail is what a report loses, never a violation. */
	private static final int MAX_EVENTS = 200_000;

	private volatile long startNanos = System.nanoTime();

	private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

	/** Makes now the run's zero, from which the fault schedule counts. */
	void zero() {
		this.startNanos = System.nanoTime();
	}

	long now() {
		return (System.nanoTime() - this.startNanos) / 1_000_000;
	}

	/**
	 * Records an event.
	 * @param subject what it concerns: a lock or task name, or {@code fault} for faults, which are
	 * shown with every violation
	 * @param text what happened
	 */
	void record(String subject, String text) {
		if (this.events.size() < MAX_EVENTS || subject.equals(FAULT)) {
			this.events.add(new Event(now(), Thread.currentThread().getName(), subject, text));
		}
	}

	/**
	 * Events of the subject at any time (a duplicate's earlier run may be long before the
	 * violation), and faults within {@code windowMillis} of {@code atMillis}: at most {@code max},
	 * those closest to the moment.
	 */
	List<String> around(long atMillis, String subject, long windowMillis, int max) {
		List<Event> near = new ArrayList<>();
		int closest = 0;
		for (Event event : this.events) {
			if (event.subject.equals(subject)
					|| (event.subject.equals(FAULT) && Math.abs(event.atMillis - atMillis) <= windowMillis)) {
				near.add(event);
				if (event.atMillis < atMillis) {
					closest = near.size();
				}
			}
		}
		// Keep the events closest to the violation when there are too many.
		int from = Math.max(0, Math.min(near.size() - max, closest - max / 2));
		return near.subList(from, Math.min(near.size(), from + max)).stream().map(Event::describe).toList();
	}

	/** Every event of the subject, in order. */
	List<String> of(String subject) {
		return this.events.stream().filter((event) -> event.subject.equals(subject)).map(Event::describe).toList();
	}

	static final String FAULT = "fault";

	private record Event(long atMillis, String thread, String subject, String text) {

		String describe() {
			return String.format("%6d ms [%s] %s: %s", this.atMillis, this.thread, this.subject, this.text);
		}

	}

}
