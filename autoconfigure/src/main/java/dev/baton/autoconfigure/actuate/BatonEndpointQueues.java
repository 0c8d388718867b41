package dev.baton.autoconfigure.actuate;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

import dev.baton.autoconfigure.actuate.BatonEndpoint.DeadLetterDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.DueWindowDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.Outcome;
import dev.baton.autoconfigure.actuate.BatonEndpoint.QueueDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.QueueStatsDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.TaskChange;
import dev.baton.autoconfigure.actuate.BatonEndpoint.TaskDescriptor;
import dev.baton.autoconfigure.actuate.BatonPayloadSanitizer.Part;
import dev.baton.internal.Names;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/**
 * The queue part of the {@link BatonEndpoint}: reads the application's queues by name, and makes
 * the audited writes to a dead letter or waiting task that the writable queues allow. The
 * endpoint maps paths and parameters onto it.
 */
final class BatonEndpointQueues {

	private final ObjectProvider<DelayQueue<?>> queues;

	private final Predicate<String> writableQueues;

	private final TaskChangeAudit audit;

	private final BatonPayloadSanitizer sanitizer;

	BatonEndpointQueues(ObjectProvider<DelayQueue<?>> queues, Predicate<String> writableQueues, TaskChangeAudit audit,
			BatonPayloadSanitizer sanitizer) {
		this.queues = queues;
		this.writableQueues = writableQueues;
		this.audit = audit;
		this.sanitizer = sanitizer;
	}

	/** Every queue's counts, in name order. */
	Map<String, QueueStatsDescriptor> stats() {
		Map<String, QueueStatsDescriptor> stats = new TreeMap<>();
		byName().forEach((name, queue) -> stats.put(name, describe(queue.stats())));
		return stats;
	}

	/**
	 * One queue, with a page of a due window if asked for.
	 * @param limit how many tasks and dead letters to list, and tasks of the window
	 * @return the queue, or {@code null} if the application has no queue of that name
	 */
	@Nullable QueueDescriptor read(String name, int limit, @Nullable DueWindowRequest window, boolean showValues) {
		DelayQueue<?> queue = byName().get(name);
		if (queue == null) {
			return null;
		}
		ShownValues values = new ShownValues(name, showValues, this.sanitizer);
		DueWindowDescriptor dueWindow = (window != null) ? window.read(queue, limit, values) : null;
		return new QueueDescriptor(name, describe(queue.stats()),
				queue.peek(limit).stream().map((task) -> describe(task, values)).toList(),
				queue.deadLetters(limit).stream().map((deadLetter) -> describe(deadLetter, values)).toList(),
				dueWindow);
	}

	/**
	 * Changes a dead letter or waiting task if the queue is writable, audited whatever comes of it.
	 * @param action {@code redrive}, {@code purge} or {@code cancel}, for the audit
	 * @param operation what changes the task, telling whether there was one to change
	 * @return the outcome, or {@code null} if the application has no queue of that name
	 */
	@Nullable TaskChange change(String name, String id, String action, BiPredicate<DelayQueue<?>, String> operation,
			SecurityContext security) {
		DelayQueue<?> queue = byName().get(name);
		if (queue == null) {
			return null;
		}
		// before the audit logs the id, also when the queue is refused: a forged line stays out of the log
		requireNoControlCharacters(id);
		if (!this.writableQueues.test(name)) {
			return this.audit.record(security, new TaskChange(name, id, action, Outcome.REFUSED));
		}
		boolean done;
		try {
			done = operation.test(queue, id);
		}
		catch (IllegalArgumentException ex) {
			// a malformed id (too long, say) reached nothing in Redis: a bad request, not a write
			throw invalidId(ex);
		}
		catch (RuntimeException ex) {
			this.audit.record(security, new TaskChange(name, id, action, Outcome.FAILED));
			throw ex;
		}
		return this.audit.record(security, new TaskChange(name, id, action, done ? Outcome.DONE : Outcome.NOT_FOUND));
	}

	private static void requireNoControlCharacters(String id) {
		try {
			Names.requireNoControlCharacters("Task id", id);
		}
		catch (IllegalArgumentException ex) {
			throw invalidId(ex);
		}
	}

	private static InvalidEndpointRequestException invalidId(IllegalArgumentException ex) {
		return new InvalidEndpointRequestException(ex.getMessage(), "Invalid task id");
	}

	/** A waiting task, its payload shown or masked as {@code values} say. */
	static TaskDescriptor describe(ScheduledTask<?> task, ShownValues values) {
		return new TaskDescriptor(task.id(), values.payload(task.payload()), task.dueAt().toString(),
				task.scheduledAt().toString(), values.text(Part.UNREADABLE_PAYLOAD, task.unreadablePayload()),
				task.lock());
	}

	private static DeadLetterDescriptor describe(DeadLetter<?> deadLetter, ShownValues values) {
		return new DeadLetterDescriptor(deadLetter.id(), values.payload(deadLetter.payload()), deadLetter.attempts(),
				values.text(Part.REASON, deadLetter.reason()), deadLetter.failedAt().toString(),
				values.text(Part.UNREADABLE_PAYLOAD, deadLetter.unreadablePayload()));
	}

	private static QueueStatsDescriptor describe(QueueStats stats) {
		Instant oldestDueAt = stats.oldestDueAt();
		return new QueueStatsDescriptor(stats.scheduled(), stats.due(), stats.inFlight(), stats.dead(),
				(oldestDueAt != null) ? oldestDueAt.toString() : null);
	}

	private Map<String, DelayQueue<?>> byName() {
		Map<String, DelayQueue<?>> byName = new TreeMap<>();
		this.queues.orderedStream().forEach((queue) -> byName.putIfAbsent(queue.name(), queue));
		return byName;
	}

}
