package dev.baton.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of one run: its seed and fault timeline, totals, and each violation with the
 * events around it.
 */
final class HarnessReport {

	/** Violations printed with their surrounding events; the rest in one line each. */
	private static final int DETAILED = 10;

	private final FaultSchedule schedule;

	private final List<Violation> violations;

	private final List<String> totals;

	private final Timeline timeline;

	private final String seedsProperty;

	private final int faultsApplied;

	/**
	 * @param seedsProperty the system property that replays a seed, as {@code baton.harness.seeds}
	 * @param faultsApplied how many faults of the schedule were applied
	 */
	HarnessReport(FaultSchedule schedule, List<Violation> violations, List<String> totals, Timeline timeline,
			String seedsProperty, int faultsApplied) {
		this.schedule = schedule;
		this.faultsApplied = faultsApplied;
		this.seedsProperty = seedsProperty;
		this.violations = violations;
		this.totals = totals;
		this.timeline = timeline;
	}

	int faultsApplied() {
		return this.faultsApplied;
	}

	List<Violation> violations() {
		return this.violations;
	}

	/** The violations that show no {@link KnownDefects known defect}: these fail the build. */
	List<Violation> newViolations() {
		return this.violations.stream().filter((violation) -> violation.knownDefect() == null).toList();
	}

	String describe() {
		StringBuilder text = new StringBuilder("Harness run of seed ").append(this.schedule.seed())
			.append(" (replay with -D").append(this.seedsProperty).append('=').append(this.schedule.seed()).append(")\n");
		this.totals.forEach((line) -> text.append("  ").append(line).append('\n'));
		text.append("  ").append(this.violations.size()).append(" violations, ").append(newViolations().size())
			.append(" of them new\n");
		// New violations first: they get the events around them.
		List<Violation> ordered = new ArrayList<>(newViolations());
		this.violations.stream().filter((violation) -> violation.knownDefect() != null).forEach(ordered::add);
		for (int i = 0; i < ordered.size(); i++) {
			Violation violation = ordered.get(i);
			text.append((violation.knownDefect() != null) ? "KNOWN DEFECT [" + violation.knownDefect() + "] " : "")
				.append("VIOLATION at ").append(violation.atMillis()).append(" ms, ").append(violation.subject())
				.append(", of \"").append(violation.invariant()).append("\": ").append(violation.text()).append('\n');
			if (i < DETAILED) {
				this.timeline.around(violation.atMillis(), violation.subject(), 2500, 60)
					.forEach((line) -> text.append("    ").append(line).append('\n'));
			}
		}
		return text.append(this.schedule.describe()).toString();
	}

}
