package dev.baton.lock;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Lock meters, tagged with the lock's group, never with names that carry ids. Past a maximum
 * number of groups, further groups are tagged {@value #OTHER}, so that groups that carry ids by
 * mistake cannot grow the registry without bound.
 */
final class MicrometerLockMetrics implements LockMetrics {

	static final String OTHER = "other";

	private static final Log logger = LogFactory.getLog(MicrometerLockMetrics.class);

	private final MeterRegistry registry;

	private final Set<String> groups = ConcurrentHashMap.newKeySet();

	private final int maxGroups;

	private MicrometerLockMetrics(MeterRegistry registry, int maxGroups) {
		this.registry = registry;
		this.maxGroups = maxGroups;
	}

	// Returns the interface type so that callers load this class only when Micrometer is present.
	static LockMetrics of(MeterRegistry registry, int maxGroups) {
		return new MicrometerLockMetrics(registry, maxGroups);
	}

	/** The tag of a group: the group itself while there is room, else {@value #OTHER}. */
	private String tag(String group) {
		if (this.groups.contains(group)) {
			return group;
		}
		synchronized (this.groups) {
			if (this.groups.size() < this.maxGroups) {
				this.groups.add(group);
				return group;
			}
			if (this.groups.add(OTHER)) {
				logger.warn("More than " + this.maxGroups + " lock metric groups: further groups, such as '" + group
						+ "', are tagged lock=" + OTHER + ". Give locks whose names carry ids a group of their own "
						+ "(LockRequest.group, LockManager.getLock(name, group)) or raise baton.lock.max-metric-groups.");
			}
			return OTHER;
		}
	}

	@Override
	public void acquisition(String group, Outcome outcome, long nanos) {
		String tag = tag(group);
		Timer.builder("baton.lock.acquire")
			.description("Time to acquire a lock, by outcome")
			.tag("lock", tag)
			.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
		if (outcome == Outcome.ACQUIRED) {
			// Registered at zero, so that an alert on its increase also sees the group's first loss.
			lostCounter(tag);
		}
	}

	@Override
	public void held(String group, long nanos) {
		Timer.builder("baton.lock.held")
			.description("Time locks were held")
			.tag("lock", tag(group))
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void lost(String group) {
		lostCounter(tag(group)).increment();
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
