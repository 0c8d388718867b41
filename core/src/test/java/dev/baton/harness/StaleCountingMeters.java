package dev.baton.harness;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.cumulative.CumulativeCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * An instance's meters, which also write to the ledger, with when it happened, every count of
 * {@code baton.queue.stale}: what Baton itself counted of the deliveries it lost, for matching
 * duplicates to their causes.
 */
final class StaleCountingMeters extends SimpleMeterRegistry {

	static final String STALE = "baton.queue.stale";

	private final int instance;

	private final TaskLedger ledger;

	private final Timeline timeline;

	StaleCountingMeters(int instance, TaskLedger ledger, Timeline timeline) {
		this.instance = instance;
		this.ledger = ledger;
		this.timeline = timeline;
	}

	@Override
	protected Counter newCounter(Meter.Id id) {
		if (!id.getName().equals(STALE)) {
			return super.newCounter(id);
		}
		String operation = String.valueOf(id.getTag("operation"));
		return new CumulativeCounter(id) {

			@Override
			public void increment(double amount) {
				super.increment(amount);
				long at = StaleCountingMeters.this.timeline.now();
				StaleCountingMeters.this.ledger.staleCounts
					.add(new TaskLedger.StaleCount(StaleCountingMeters.this.instance, at, operation, (int) amount));
				StaleCountingMeters.this.timeline.record("stale", "instance-" + StaleCountingMeters.this.instance
						+ " counted " + (int) amount + " in " + STALE + " (operation " + operation + ")");
			}

		};
	}

}
