package dev.baton.autoconfigure.actuate;

import java.security.Principal;
import java.util.Locale;
import java.util.Map;

import dev.baton.autoconfigure.actuate.BatonEndpoint.LocksReleased;
import dev.baton.autoconfigure.actuate.BatonEndpoint.Outcome;
import dev.baton.autoconfigure.actuate.BatonEndpoint.TaskChange;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Records a write of the {@link BatonEndpoint}: an {@link AuditApplicationEvent} of type
 * {@code BATON_REDRIVE}, {@code BATON_PURGE}, {@code BATON_CANCEL} or {@code BATON_RELEASE_ALL_LOCKS} (stored by Boot's
 * {@code AuditListener} when the application has an {@code AuditEventRepository}), and a log line,
 * so that a change made by hand can be traced to who made it even without an audit repository.
 */
final class TaskChangeAudit {

	private static final Log logger = LogFactory.getLog(BatonEndpoint.class);

	private final ApplicationEventPublisher events;

	TaskChangeAudit(ApplicationEventPublisher events) {
		this.events = events;
	}

	/** Publishes and logs a release of all locks, and returns it. */
	LocksReleased record(SecurityContext security, LocksReleased release) {
		String who = who(security);
		this.events.publishEvent(new AuditApplicationEvent(who, "BATON_RELEASE_ALL_LOCKS",
				Map.of("released", release.released())));
		logger.warn("Actuator release of all locks of this instance by " + who + ": " + release.released()
				+ " released");
		return release;
	}

	private static String who(SecurityContext security) {
		Principal principal = security.getPrincipal();
		return (principal != null) ? principal.getName() : "anonymous";
	}

	/** Publishes and logs the change, and returns it. */
	TaskChange record(SecurityContext security, TaskChange change) {
		String who = who(security);
		Map<String, Object> data = Map.of("queue", change.queue(), "id", change.id(), "action", change.action(),
				"outcome", change.outcome().name());
		this.events.publishEvent(
				new AuditApplicationEvent(who, "BATON_" + change.action().toUpperCase(Locale.ROOT), data));
		String line = "Actuator " + change.action() + " of task '" + change.id() + "' in queue '" + change.queue()
				+ "' by " + who + ": " + change.outcome();
		if (change.outcome() == Outcome.DONE || change.outcome() == Outcome.NOT_FOUND) {
			logger.info(line);
		}
		else {
			logger.warn(line);
		}
		return change;
	}

}
