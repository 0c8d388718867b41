package dev.baton.test.queue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import dev.baton.lock.spi.TokenLeases;

/**
 * The lock of a task as one {@link InMemoryDelivery} holds it, under the token stored with the
 * task: valid while the delivery holds the task and the lock was not found lost.
 */
final class TaskLock implements LockLease {

	private enum State {

		/** The delivery holds the task, and the lock was not found lost. */
		HELD,

		/** The token was found to hold its lock no more. */
		LOST,

		/** Released through this delivery, or its task ended. */
		RELEASED,

		/** The delivery gave the task back to the queue, or turned out stale: the lock stays with the task. */
		LEFT

	}

	private final LeaseToken token;

	private final TokenLeases leases;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	TaskLock(LeaseToken token, TokenLeases leases) {
		this.token = token;
		this.leases = leases;
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

	@Override
	public void release() {
		if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			this.leases.release(this.token);
		}
	}

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
		if (this.state.get() != State.HELD || !keptFor(leaseTime)) {
			throw lost("was not extended");
		}
	}

	/** The lock stays with the task until it ends. */
	@Override
	public LeaseToken handOver() {
		throw new UnsupportedOperationException(
				"Lock '" + name() + "' stays with its task until the task ends; it cannot be handed over");
	}

	/** Keeps the lock for {@code wait} plus its lease while this delivery holds the task. */
	void keep(Duration wait) {
		if (this.state.get() == State.HELD) {
			keptFor(keepFor(this.leases, this.token, wait));
		}
	}

	/** How long a task's lock is kept for it to wait {@code wait}: that plus its lease, at most the longest lease. */
	static Duration keepFor(TokenLeases leases, LeaseToken token, Duration wait) {
		Duration time = wait.plus(leases.leaseOf(token));
		return (time.compareTo(LockRequest.MAX_LEASE_TIME) > 0) ? LockRequest.MAX_LEASE_TIME : time;
	}

	/** This delivery no longer holds the task, which keeps its lock. */
	void leave() {
		this.state.compareAndSet(State.HELD, State.LEFT);
	}

	private boolean keptFor(Duration time) {
		if (this.leases.extend(this.token, time)) {
			return true;
		}
		this.state.compareAndSet(State.HELD, State.LOST);
		return false;
	}

	private LeaseLostException lost(String what) {
		return new LeaseLostException("Lock '" + name() + "' of task " + what + ": "
				+ ((this.state.get() == State.LOST) ? "it was lost (it ran out, or was released or taken)"
						: "this delivery no longer holds the task or its lock"));
	}

	@Override
	public String toString() {
		return "TaskLock[" + name() + ", " + this.state.get() + "]";
	}

}
