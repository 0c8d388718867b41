package dev.baton.queue.spi;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import dev.baton.lock.spi.TokenLeases;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The lock a task holds, as one delivery of it sees it ({@code Delivery.lease()}), for queues that
 * give locks to tasks: it acts under the token stored with the task ({@link TokenLeases}), never
 * taking the lock over. While the delivery is in flight the queue keeps the lock for the
 * visibility timeout plus its lease ({@link #keepFor}), so that if this consumer dies the lock
 * outlasts the task's redelivery; a retry keeps it for the backoff plus its lease. The lock is
 * released when the task ends for good through this delivery ({@link #end()}); a delivery that
 * turns out stale, or that gives the task back to the queue, leaves it to the task
 * ({@link #leave()}).
 */
public final class TaskLease implements LockLease {

	private static final Log logger = LogFactory.getLog(TaskLease.class);

	private enum State {

		/** This delivery holds the task, and the lock was not found lost. */
		HELD,

		/** Redis answered that the token no longer holds its lock (reported by the lock manager). */
		LOST,

		/** Released through this delivery. */
		RELEASED,

		/** This delivery no longer holds the task: settled back to the queue, or stale. */
		LEFT

	}

	private final LeaseToken token;

	private final TokenLeases leases;

	private final String taskDescription;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/**
	 * The lease of one delivery of a task.
	 * @param token the token stored with the task
	 * @param leases the lock manager's operations on tokens
	 * @param taskDescription the task, for messages, e.g. {@code task 'x' of queue 'y'}
	 */
	public TaskLease(LeaseToken token, TokenLeases leases, String taskDescription) {
		this.token = token;
		this.leases = leases;
		this.taskDescription = taskDescription;
	}

	@Override
	public String name() {
		return this.token.name();
	}

	@Override
	public long fencingToken() {
		if (this.state.get() == State.LOST) {
			throw lost("has no fencing token to use");
		}
		return this.token.fencingToken();
	}

	@Override
	public boolean isValid() {
		return this.state.get() == State.HELD;
	}

	/** Releases the lock now, before the task ends; the task's end then changes nothing. */
	@Override
	public void release() {
		if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			this.leases.release(this.token);
		}
	}

	/** Keeps the lock for {@code lockAtLeastFor} from now, then lets it run out. */
	@Override
	public void release(Duration lockAtLeastFor) {
		if (lockAtLeastFor.isNegative() || lockAtLeastFor.isZero()) {
			release();
		}
		else if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			this.leases.extend(this.token, lockAtLeastFor);
		}
	}

	@Override
	public void extend(Duration leaseTime) {
		if (this.state.get() != State.HELD) {
			throw lost("cannot be extended");
		}
		if (!this.leases.extend(this.token, leaseTime)) {
			this.state.compareAndSet(State.HELD, State.LOST);
			throw lost("was not extended");
		}
	}

	/** A task's lock stays with the task: hand over a lease before scheduling the task with it. */
	@Override
	public LeaseToken handOver() {
		throw new UnsupportedOperationException("The lock of " + this.taskDescription
				+ " stays with its task until the task ends; it cannot be handed over");
	}

	/**
	 * Keeps the lock for {@code wait} plus its lease, while this delivery holds the task. A failure
	 * to reach the store leaves the lock with what it had; a loss is remembered (and reported by
	 * the manager).
	 * @param wait how long the task may be away from its next holder: the visibility timeout, or a
	 * retry's backoff
	 * @return {@code false} if the store could not be reached, so that a caller with more locks
	 * to keep can leave them for its next try rather than wait for each in turn
	 */
	public boolean keepFor(Duration wait) {
		if (this.state.get() != State.HELD) {
			return true;
		}
		try {
			if (!this.leases.extend(this.token, keepTime(this.leases, this.token, wait))) {
				this.state.compareAndSet(State.HELD, State.LOST);
			}
			return true;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend lock '" + name() + "' of " + this.taskDescription
					+ "; it keeps the lease it had: " + ex.getMessage());
			return false;
		}
	}

	/**
	 * How long a task's lock is kept for it to be away {@code wait}: that plus the lock's lease, at
	 * most {@link LockRequest#MAX_LEASE_TIME}.
	 * @param leases the lock manager's operations on tokens
	 * @param token the task's token
	 * @param wait how long the task may wait for its next holder
	 * @return how long to keep the lock from now
	 */
	public static Duration keepTime(TokenLeases leases, LeaseToken token, Duration wait) {
		Duration time = wait.plus(leases.leaseOf(token));
		return (time.compareTo(LockRequest.MAX_LEASE_TIME) > 0) ? LockRequest.MAX_LEASE_TIME : time;
	}

	/**
	 * The task ended for good through this delivery: releases the lock.
	 * @return {@code false} if the store could not be reached (the lock then runs out within the
	 * lease it has), so that a caller with more locks to release can leave them to run out too
	 * rather than wait for each in turn
	 */
	public boolean end() {
		if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			try {
				this.leases.release(this.token);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release lock '" + name() + "' of " + this.taskDescription
						+ ", which ended; it runs out within its lease: " + ex.getMessage());
				return false;
			}
		}
		return true;
	}

	/** This delivery no longer holds the task: the lock stays with the task. */
	public void leave() {
		this.state.compareAndSet(State.HELD, State.LEFT);
	}

	private LeaseLostException lost(String what) {
		return new LeaseLostException("Lock '" + name() + "' of " + this.taskDescription + " " + what + ": "
				+ ((this.state.get() == State.LOST) ? "it was lost (it ran out, or was deleted or taken)"
						: "this delivery no longer holds the task or its lock"));
	}

	@Override
	public String toString() {
		return "TaskLease[" + name() + ", " + this.taskDescription + ", " + this.state.get() + "]";
	}

}
