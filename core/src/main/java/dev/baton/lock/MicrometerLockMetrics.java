package dev.baton.lock;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** Lock meters, tagged with the lock's group, never with names that carry ids. */
final class MicrometerLockMetrics implements LockMetrics {

	private final MeterRegistry registry;

	private MicrometerLockMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	// Returns the interface type so that callers load this class only when Micrometer is present.
	static LockMetrics of(MeterRegistry registry) {
		return new MicrometerLockMetrics(registry);
	}

	@Override
	public void acquisition(String group, Outcome outcome, long nanos) {
		Timer.builder("baton.lock.acquire")
			.description("Time to acquire a lock, by outcome")
			.tag("lock", group)
			.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
		if (outcome == Outcome.ACQUIRED) {
			// Registered at zero, so that an alert on its increase also sees the group's first loss.
			lostCounter(group);
		}
	}

	@Override
	public void held(String group, long nanos) {
		Timer.builder("baton.lock.held")
			.description("Time locks were held")
			.tag("lock", group)
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void lost(String group) {
		lostCounter(group).increment();
	}

	private Counter lostCounter(String group) {
		return Counter.builder("baton.lock.lost")
			.description("Locks found expired or taken by someone else while held")
			.tag("lock", group)
			.register(this.registry);
	}

	@Override
	public void activeLocks(IntSupplier count) {
		Gauge.builder("baton.lock.active", count::getAsInt)
			.description("Locks this instance holds")
			.strongReference(true)
			.register(this.registry);
	}

}
