package dev.baton.autoconfigure.actuate;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.baton.lock.LockManager;
import dev.baton.lock.LockManagerStatus;
import dev.baton.queue.DelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The {@code baton} actuator endpoint: the application's delay queues with their counts, next
 * due tasks and dead letters, the locks this instance holds, and operations to redrive or purge
 * a dead letter and to cancel a waiting task.
 *
 * <p>The queues are those the application declares or handles: its {@link DelayQueue} beans,
 * by {@linkplain DelayQueue#name() queue name}. An unknown queue name is reported as absent
 * ({@code null}, a 404 over HTTP); it never creates a queue. Paths over HTTP:
 * <ul>
 * <li>{@code GET /actuator/baton}: every queue's counts and the held locks;</li>
 * <li>{@code GET /actuator/baton/queues/{name}?limit=20}: one queue's counts, next due tasks
 * and most recent dead letters; with {@code from}, {@code to} (ISO-8601) or {@code pageToken}, also
 * a page of the waiting tasks due in that window and their number;</li>
 * <li>{@code POST /actuator/baton/queues/{name}/dead-letters/{id}/redrive};</li>
 * <li>{@code DELETE /actuator/baton/queues/{name}/dead-letters/{id}} purges a dead letter;</li>
 * <li>{@code DELETE /actuator/baton/queues/{name}/tasks/{id}} cancels a waiting task;</li>
 * <li>{@code DELETE /actuator/baton/locks} releases every lock this instance holds
 * ({@link LockManager#releaseAll()}).</li>
 * </ul>
 * A task id the queue refuses (too long, say) is a bad request (400).
 *
 * <p>Access is read-only unless {@code management.endpoint.baton.access=unrestricted}. Even then a
 * write changes only a queue the {@code writableQueues} predicate accepts (by default those this
 * application consumes), and every write to a known queue is audited: an
 * {@link org.springframework.boot.actuate.audit.listener.AuditApplicationEvent} and a log line.
 *
 * <p>Payloads, unreadable payloads and dead-letter reasons are masked unless
 * {@code management.endpoint.baton.show-values} says to show them, and then pass through the
 * {@link BatonPayloadSanitizer}; ids, counts and times are always shown. Without a security
 * context (JMX), {@code when-authorized} shows them, as Boot's {@code env} endpoint does.
 */
@Endpoint(id = "baton", defaultAccess = Access.READ_ONLY)
public class BatonEndpoint {

	/** How many tasks and dead letters a queue read lists unless told otherwise. */
	public static final int DEFAULT_LIMIT = 20;

	/** The most tasks and dead letters a queue read lists. */
	public static final int MAX_LIMIT = 200;

	private static final String QUEUES = "queues";

	private static final String DEAD_LETTERS = "dead-letters";

	private static final String TASKS = "tasks";

	private static final String LOCKS = "locks";

	private final BatonEndpointQueues queues;

	private final BatonEndpointLocks locks;

	private final Show showValues;

	/**
	 * Create the endpoint.
	 * @param queues the application's queues
	 * @param lockManager the status of the lock manager, if there is one
	 * @param writableQueues which queues, by name, the write operations may change
	 * @param events where the audit events of writes are published
	 * @param showValues when payloads and reasons are shown rather than masked
	 * @param sanitizer what shown payloads and reasons pass through
	 */
	public BatonEndpoint(ObjectProvider<DelayQueue<?>> queues, ObjectProvider<LockManagerStatus> lockManager,
			Predicate<String> writableQueues, ApplicationEventPublisher events, Show showValues,
			BatonPayloadSanitizer sanitizer) {
		TaskChangeAudit audit = new TaskChangeAudit(events);
		this.queues = new BatonEndpointQueues(queues, writableQueues, audit, sanitizer);
		this.locks = new BatonEndpointLocks(lockManager, audit);
		this.showValues = showValues;
	}

	/**
	 * Every queue's counts and the locks this instance holds.
	 * @return the overview
	 */
	@ReadOperation
	public BatonDescriptor baton() {
		return new BatonDescriptor(this.queues.stats(), this.locks.held());
	}

	/**
	 * One queue: its counts, next due tasks and most recent dead letters, and, if asked for, a page
	 * of the waiting tasks due in a window with their number.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param limit how many tasks and dead letters to list, 1 to {@value #MAX_LIMIT}; the default
	 * is {@value #DEFAULT_LIMIT}
	 * @param from ISO-8601 start of the due window (included), the epoch if only {@code to} or
	 * {@code pageToken} is given
	 * @param to ISO-8601 end of the due window (left out), after every due time if only {@code from}
	 * or {@code pageToken} is given
	 * @param pageToken the {@code nextPageToken} of the window's page before, with the same
	 * {@code from} and {@code to}
	 * @return the queue, or {@code null} if the application has no queue of that name
	 */
	@ReadOperation
	public @Nullable QueueDescriptor queue(@Selector String section, @Selector String name,
			@Nullable Integer limit, @Nullable String from, @Nullable String to, @Nullable String pageToken) {
		return queue(section, name, limit, DueWindowRequest.of(from, to, pageToken), this.showValues.isShown(true));
	}

	/**
	 * One queue, its payloads and reasons shown or masked, without a due window.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param limit how many tasks and dead letters to list
	 * @param showValues whether payloads and reasons are shown (sanitized) rather than masked
	 * @return the queue, or {@code null} if the application has no queue of that name
	 * @see #queue(String, String, Integer, String, String, String)
	 */
	public @Nullable QueueDescriptor queue(String section, String name, @Nullable Integer limit, boolean showValues) {
		return queue(section, name, limit, null, showValues);
	}

	/**
	 * One queue, with a page of a due window if asked for, its payloads and reasons shown or masked.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param limit how many tasks and dead letters to list, and tasks of the window
	 * @param window the due window to list, or {@code null}
	 * @param showValues whether payloads and reasons are shown (sanitized) rather than masked
	 * @return the queue, or {@code null} if the application has no queue of that name
	 * @see #queue(String, String, Integer, String, String, String)
	 */
	public @Nullable QueueDescriptor queue(String section, String name, @Nullable Integer limit,
			@Nullable DueWindowRequest window, boolean showValues) {
		int max = checkedLimit(limit);
		return QUEUES.equals(section) ? this.queues.read(name, max, window, showValues) : null;
	}

	/**
	 * Put a dead letter back on its queue, due now, with its attempts reset.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param kind must be {@code dead-letters}
	 * @param id the task id
	 * @param action must be {@code redrive}
	 * @param security who asks, for the audit
	 * @return the outcome, or {@code null} if there is no such queue or path
	 */
	@WriteOperation
	public @Nullable TaskChange redrive(@Selector String section, @Selector String name, @Selector String kind,
			@Selector String id, @Selector String action, SecurityContext security) {
		return ("redrive".equals(action) && isQueuePath(section, kind, DEAD_LETTERS))
				? this.queues.change(name, id, "redrive", DelayQueue::redrive, security) : null;
	}

	/**
	 * Purge a dead letter ({@code dead-letters}) or cancel a waiting task ({@code tasks}).
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param kind {@code dead-letters} or {@code tasks}
	 * @param id the task id
	 * @param security who asks, for the audit
	 * @return the outcome, or {@code null} if there is no such queue or path
	 */
	@DeleteOperation
	public @Nullable TaskChange delete(@Selector String section, @Selector String name, @Selector String kind,
			@Selector String id, SecurityContext security) {
		if (isQueuePath(section, kind, TASKS)) {
			return this.queues.change(name, id, "cancel", DelayQueue::cancel, security);
		}
		return isQueuePath(section, kind, DEAD_LETTERS)
				? this.queues.change(name, id, "purge", DelayQueue::purgeDeadLetter, security) : null;
	}

	/**
	 * Release every lock this instance holds, as {@link LockManager#releaseAll()} does: holders
	 * still running learn it from {@code isValid()} and a {@code LockLostEvent}. Audited as
	 * {@code BATON_RELEASE_ALL_LOCKS}.
	 * @param section must be {@code locks}
	 * @param security who asks, for the audit
	 * @return how many were released, or {@code null} if there is no such path or lock manager
	 */
	@DeleteOperation
	public @Nullable LocksReleased releaseLocks(@Selector String section, SecurityContext security) {
		return LOCKS.equals(section) ? this.locks.releaseAll(security) : null;
	}

	private static boolean isQueuePath(String section, String kind, String expectedKind) {
		return QUEUES.equals(section) && expectedKind.equals(kind);
	}

	private static int checkedLimit(@Nullable Integer limit) {
		if (limit == null) {
			return DEFAULT_LIMIT;
		}
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new InvalidEndpointRequestException("Parameter 'limit' must be between 1 and " + MAX_LIMIT
					+ " but was " + limit, "Invalid limit " + limit);
		}
		return limit;
	}

	/**
	 * Every queue's counts and the locks this instance holds.
	 * @param queues counts by queue name, in name order
	 * @param locks the locks this instance holds now
	 */
	public record BatonDescriptor(Map<String, QueueStatsDescriptor> queues, List<LockDescriptor> locks) {
	}

	/**
	 * Counts of a queue's tasks by state.
	 * @param scheduled tasks not due yet
	 * @param due due tasks waiting for a consumer
	 * @param inFlight tasks claimed by a consumer and not settled yet
	 * @param dead dead letters
	 * @param oldestDueAt ISO-8601 due time of the oldest due task, or {@code null} if none is due
	 */
	public record QueueStatsDescriptor(long scheduled, long due, long inFlight, long dead,
			@Nullable String oldestDueAt) {
	}

	/**
	 * One queue.
	 * @param name the queue name
	 * @param stats its counts
	 * @param nextDue the earliest waiting tasks, in due order
	 * @param deadLetters the most recent dead letters first
	 * @param dueWindow the page of the due window asked for with {@code from}, {@code to} or
	 * {@code pageToken}, or {@code null}
	 */
	public record QueueDescriptor(String name, QueueStatsDescriptor stats, List<TaskDescriptor> nextDue,
			List<DeadLetterDescriptor> deadLetters, @Nullable DueWindowDescriptor dueWindow) {
	}

	/**
	 * One page of the waiting tasks due in a window ({@link DelayQueue#dueBetween}).
	 * @param from ISO-8601 start of the window, included
	 * @param to ISO-8601 end of the window, left out
	 * @param count how many waiting tasks are due in the whole window
	 * @param tasks the tasks of this page, by due time and then id
	 * @param nextPageToken the {@code pageToken} of the next page, or {@code null} if this is the last
	 */
	public record DueWindowDescriptor(String from, String to, long count, List<TaskDescriptor> tasks,
			@Nullable String nextPageToken) {
	}

	/**
	 * A waiting task.
	 * @param id the task id
	 * @param payload the payload (masked or sanitized), or {@code null} if it cannot be read
	 * @param dueAt ISO-8601 due time
	 * @param scheduledAt ISO-8601 time it was scheduled
	 * @param unreadablePayload the stored JSON of a payload that cannot be read, as a string
	 * (masked or sanitized), or {@code null}
	 * @param lock the name of the lock the task holds until it ends, or {@code null}
	 */
	public record TaskDescriptor(String id, @Nullable Object payload, String dueAt, String scheduledAt,
			@Nullable String unreadablePayload, @Nullable String lock) {
	}

	/**
	 * A dead letter.
	 * @param id the task id
	 * @param payload the payload (masked or sanitized), or {@code null} if it could not be read
	 * @param attempts how many times it was delivered
	 * @param reason why it failed (masked or sanitized), {@code null} if the sanitizer hides it
	 * @param failedAt ISO-8601 time it was dead-lettered
	 * @param unreadablePayload the stored JSON of a payload that could not be read (masked or
	 * sanitized), or {@code null}
	 */
	public record DeadLetterDescriptor(String id, @Nullable Object payload, int attempts, @Nullable String reason,
			String failedAt, @Nullable String unreadablePayload) {
	}

	/**
	 * A lock this instance holds.
	 * @param name the lock name
	 * @param group its metric group
	 * @param fencingToken the fencing token of the acquisition
	 * @param heldForMillis how long it has been held
	 * @param validForMillis how much longer the lease is valid without a further renewal
	 * @param renewed whether the watchdog renews it
	 */
	public record LockDescriptor(String name, String group, long fencingToken, long heldForMillis,
			long validForMillis, boolean renewed) {
	}

	/**
	 * A write or delete operation and its outcome.
	 * @param queue the queue name
	 * @param id the task id
	 * @param action {@code redrive}, {@code purge} or {@code cancel}
	 * @param outcome what came of it
	 */
	public record TaskChange(String queue, String id, String action, Outcome outcome) {
	}

	/**
	 * What {@code DELETE /actuator/baton/locks} did.
	 * @param released how many locks of this instance were released
	 */
	public record LocksReleased(int released) {
	}

	/**
	 * What came of a write or delete operation.
	 */
	public enum Outcome {

		/** The dead letter or waiting task was changed. */
		DONE,

		/** There was no such dead letter, or no waiting task of that id (unknown, in flight, or done). */
		NOT_FOUND,

		/** The queue is not writable: the application does not consume it, nor lists it as writable. */
		REFUSED,

		/** The operation failed with an exception, e.g. Redis did not answer. */
		FAILED

	}

}
