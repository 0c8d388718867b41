package dev.baton.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.baton.lock.LockLease;

/**
 * What a {@link dev.baton.queue.annotation.DelayedTask @DelayedTask} handler may know about the
 * task it handles: declare a parameter of this type to receive it.
 */
public interface TaskContext {

	/** The queue name. */
	String queue();

	/** The task id: use it to make the handler idempotent. */
	String id();

	/** The attempt number, {@code 1} for the first delivery. */
	int attempt();

	/** When the task fell due. */
	Instant dueAt();

	/** When the task was scheduled. */
	Instant scheduledAt();

	/**
	 * The lock the task holds, if it was {@linkplain DelayQueue#schedule(String, Object, Duration,
	 * LockLease) scheduled with one}: pass its {@link LockLease#fencingToken() fencing token} to
	 * the resource it protects. It is released when the task ends for good; {@code isValid()} is
	 * {@code false} if the lock was lost before or while the task ran.
	 * @return the lease, or empty if the task holds no lock
	 */
	default Optional<LockLease> lease() {
		return Optional.empty();
	}

	/**
	 * Keep the task invisible to other consumers for at least {@code timeout} from now. The
	 * container already extends the visibility of running handlers by its visibility timeout;
	 * call this to ask for more at once, for example before a step known to take long. A longer
	 * extension holds: the container's periodic extension never shortens it.
	 * @param timeout the new visibility timeout, positive
	 * @return {@code false} if the task is lost (see {@link #isLost()}); the handler should then
	 * stop, since another consumer may run the task or may have run it already
	 */
	boolean extendVisibility(Duration timeout);

	/**
	 * Whether this delivery is known to be lost: Redis answered an extension of its visibility
	 * (the container's periodic one, or {@link #extendVisibility}) that the task is no longer
	 * this delivery's, because its visibility ran out and it was redelivered to another consumer,
	 * or it was cancelled. A long-running handler can check this between steps and stop: what it
	 * returns or throws then settles nothing (Redis ignores a stale delivery's acknowledgement).
	 * {@code false} does not guarantee the task is still held: loss is learnt from the next
	 * extension, so idempotent handling stays necessary.
	 * @return whether the task is lost
	 */
	boolean isLost();

}
