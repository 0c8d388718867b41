package dev.baton.lock.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Lock meters besides the acquisition timer, which comes from the acquisition's observation.
 * Tags are {@link MetricGroups} tags, never names that carry ids.
 */
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
	public void acquired(String tag) {
		// Registered at zero, so that an alert on its increase also sees the group's first loss.
		lostCounter(tag);
	}

	@Override
	public void held(String tag, long nanos) {
		Timer.builder("baton.lock.held")
			.description("Time locks were held")
			.tag("lock", tag)
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void lost(String tag) {
		lostCounter(tag).increment();
	}

	@Override
	public void releaseUnconfirmed(String tag) {
		Counter.builder("baton.lock.release.unconfirmed")
			.description("Releases Redis did not confirm; they are retried until the lease runs out")
			.tag("lock", tag)
			.register(this.registry)
			.increment();
	}

	@Override
	public void unreplicated(String operation) {
		Counter.builder("baton.lock.unreplicated")
			.description("Lock writes that fewer replicas acknowledged in time than the lock manager waits for")
			.tag("operation", operation)
			.register(this.registry)
			.increment();
	}

	private Counter lostCounter(String tag) {
		return Counter.builder("baton.lock.lost")
			.description("Locks found expired or taken by someone else while held")
			.tag("lock", tag)
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
