package dev.baton.harness;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.lock.LockLostEvent;

/** The {@link LockLostEvent}s every instance published, by lock name and fencing token. */
final class LossReports {

	/**
	 * How long after a holder's section its loss may still be reported: a renewal period, or the
	 * release that finds it gone, plus a second. Lease 1.5 s in the harness.
	 */
	static final long REPORTED_WITHIN_MILLIS = 2500;

	private final Map<String, Long> reportedAt = new ConcurrentHashMap<>();

	/** Lock name to when its losses were reported, for holders that know no token. */
	private final Map<String, List<Long>> reportedAtByName = new ConcurrentHashMap<>();

	private final Timeline timeline;

	LossReports(Timeline timeline) {
		this.timeline = timeline;
	}

	void lost(int instance, LockLostEvent event) {
		lost(instance, event.name(), event.fencingToken());
	}

	/** A loss reported by an instance, or by the child JVM, which tells it as a line of text. */
	void lost(int instance, String name, long fencingToken) {
		this.reportedAt.putIfAbsent(name + "#" + fencingToken, this.timeline.now());
		this.reportedAtByName.computeIfAbsent(name, (key) -> new CopyOnWriteArrayList<>()).add(this.timeline.now());
		this.timeline.record(name, "LockLostEvent on instance-" + instance + ", token " + fencingToken);
	}

	/**
	 * Whether the hold's loss was reported: by its token, or for a holder without one (a
	 * {@code @DistributedLock} method), a loss of its lock name reported while it held it or
	 * within {@link #REPORTED_WITHIN_MILLIS} after.
	 */
	boolean reported(Hold hold) {
		if (hold.token == Hold.NO_TOKEN) {
			long until = (hold.endMillis == Long.MAX_VALUE) ? Long.MAX_VALUE : hold.endMillis + REPORTED_WITHIN_MILLIS;
			return this.reportedAtByName.getOrDefault(hold.name, List.of())
				.stream()
				.anyMatch((at) -> at >= hold.startMillis && at <= until);
		}
		return this.reportedAt.containsKey(hold.name + "#" + hold.token);
	}

	int count() {
		return this.reportedAt.size();
	}

}
