package dev.baton.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import dev.baton.lock.LockLease;

/**
 * One delivery of a due task to a consumer. Exactly one of {@link #ack()}, {@link #retry},
 * {@link #deadLetter} settles it; until then the task is invisible to other consumers for the
 * visibility timeout. Settling succeeds only for the current delivery: once the task was
 * redelivered elsewhere, this stale delivery can no longer change it.
 *
 * @param <T> the payload type
 */
public interface Delivery<T> {

	/** The task id. */
	String id();

	/** The payload. */
	T payload();

	/** The attempt number, {@code 1} for the first delivery. */
	int attempt();

	/** When the task fell due. */
	Instant dueAt();

	/** When the task was scheduled. */
	Instant scheduledAt();

	/**
	 * The trace context stored with the task when it was scheduled: the propagation fields (such
	 * as {@code traceparent}) that tracing injected, so that handling can continue the trace.
	 * @return the fields by name, empty when the task was scheduled without tracing
	 */
	default Map<String, String> traceContext() {
		return Map.of();
	}

	/**
	 * The lock the task holds, if it was {@linkplain DelayQueue#schedule(String, Object, Duration,
	 * dev.baton.lock.LockLease) scheduled with one}: kept while this delivery holds the task and
	 * released when it is acknowledged or dead-lettered. {@code isValid()} is {@code false} once
	 * the lock was found lost (it ran out before the task was claimed, or Redis lost it) or this
	 * delivery no longer holds the task.
	 * @return the lease, or empty if the task holds no lock
	 */
	default Optional<LockLease> lease() {
		return Optional.empty();
	}

	/**
	 * Acknowledge the task: it is done and its data is deleted.
	 * @return {@code false} if this delivery is stale (the task was redelivered or cancelled)
	 */
	boolean ack();

	/**
	 * Schedule the task again after {@code delay}, counting this attempt.
	 * @param delay the delay before the next attempt, not negative
	 * @return {@code false} if this delivery is stale
	 */
	boolean retry(Duration delay);

	/**
	 * Move the task to the dead letters.
	 * @param reason why the task failed, shown with the dead letter
	 * @return {@code false} if this delivery is stale
	 */
	boolean deadLetter(String reason);

	/**
	 * Keep the task invisible to other consumers for at least {@code timeout} from now (Redis
	 * time). A later deadline already set stays: an extension never shortens the visibility, so
	 * that a short periodic extension cannot undo a longer one asked for before.
	 * @param timeout the new visibility timeout, positive, at most
	 * {@link DelayQueue#MAX_VISIBILITY_TIMEOUT}
	 * @return {@code false} if this delivery is stale
	 */
	boolean extendVisibility(Duration timeout);

}
