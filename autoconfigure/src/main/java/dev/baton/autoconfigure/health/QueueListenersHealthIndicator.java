package dev.baton.autoconfigure.health;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.DelayedTaskListenerStatus;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the {@code @DelayedTask} listener containers: UP while every container's claim loop
 * runs and progresses; DOWN when one has stopped, or its claims, acknowledgements or extensions
 * keep failing, or it holds every permit and frees none (the {@code stall} detail says which),
 * with each queue's state in the details. Reads what the containers last saw, never Redis.
 */
final class QueueListenersHealthIndicator extends AbstractHealthIndicator {

	private final DelayedTaskListenerRegistry registry;

	QueueListenersHealthIndicator(DelayedTaskListenerRegistry registry) {
		super("Could not read the state of the delayed-task listeners");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		boolean healthy = true;
		for (DelayedTaskListenerStatus status : this.registry.getStatuses().values()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("running", status.running());
			details.put("progressing", status.progressing());
			if (status.stall() != null) {
				details.put("stall", status.stall());
			}
			if (status.lastClaim() != null) {
				details.put("lastClaim", status.lastClaim().toString());
			}
			builder.withDetail(status.queue(), details);
			healthy &= status.running() && status.progressing();
		}
		if (healthy) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

}
