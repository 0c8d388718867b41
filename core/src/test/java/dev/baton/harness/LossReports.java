package dev.baton.harness;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.lock.LockLostEvent;

/** The {@link LockLostEvent}s every instance published, by lock name and fencing token. */
final class LossReports {

	private final Map<String, Long> reportedAt = new ConcurrentHashMap<>();

	private final Timeline timeline;

	LossReports(Timeline timeline) {
		this.timeline = timeline;
	}

	void lost(int instance, LockLostEvent event) {
		this.reportedAt.putIfAbsent(event.name() + "#" + event.fencingToken(), this.timeline.now());
		this.timeline.record(event.name(), "LockLostEvent on instance-" + instance + ", token " + event.fencingToken());
	}

	boolean reported(Hold hold) {
		return this.reportedAt.containsKey(hold.name + "#" + hold.token);
	}

	int count() {
		return this.reportedAt.size();
	}

}
