package dev.baton.harness;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The violations of one run, from any thread. */
final class Violations {

	private final List<Violation> found = new CopyOnWriteArrayList<>();

	private final Timeline timeline;

	Violations(Timeline timeline) {
		this.timeline = timeline;
	}

	void add(long atMillis, String subject, String invariant, String text) {
		String known = KnownDefects.match(text);
		this.found.add(new Violation(atMillis, subject, invariant, text, known));
		this.timeline.record(subject, ((known != null) ? "known defect, " : "") + "VIOLATION of " + invariant + ": "
				+ text.lines().findFirst().orElse(""));
	}

	void add(String subject, String invariant, String text) {
		add(this.timeline.now(), subject, invariant, text);
	}

	List<Violation> all() {
		return List.copyOf(this.found);
	}

}
