package dev.baton.lock.spi;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;

/**
 * A {@link RedisLock} owned by the thread that took it, reentrant like
 * {@link java.util.concurrent.locks.ReentrantLock}: only the outermost acquisition and release
 * reach the lock manager, whose leases a {@link LockBackend} gives.
 *
 * @param <L> the manager's lease type
 */
public final class ThreadOwnedLock<L extends LockLease> implements RedisLock {

	private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

	private final LockBackend<L> backend;

	private final Holds<L> holds;

	private final String name;

	private final String group;

	/**
	 * Create a lock object; any number of them may stand for one lock.
	 * @param backend the lock manager's leases
	 * @param holds the manager's record of which thread holds which lock: one per manager
	 * @param name the lock
	 * @param group the lock's metric group
	 */
	public ThreadOwnedLock(LockBackend<L> backend, Holds<L> holds, String name, String group) {
		this.backend = backend;
		this.holds = holds;
		this.name = name;
		this.group = group;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public void lock() {
		try {
			acquire(FOREVER, null, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(FOREVER, null, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(Duration.ZERO, null, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return acquire(Duration.ofNanos(Math.max(unit.toNanos(time), 0)), null, true);
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		return acquire(waitTime, leaseTime, true);
	}

	private boolean acquire(Duration waitTime, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		if (interruptible && Thread.interrupted()) {
			// As java.util.concurrent.locks.Lock requires of an interruptible acquisition.
			throw new InterruptedException("Interrupted before acquiring lock '" + this.name + "'");
		}
		LockRequest request = LockRequest.of(this.name)
			.group(this.group)
			.waitTime(waitTime)
			.leaseTime(leaseTime)
			.build();
		Hold<L> hold = this.holds.ofCurrentThread(this.name);
		if (hold != null) {
			if (hold.lease.isValid()) {
				hold.count++;
				return true;
			}
			// Lost while held: re-entering it would hold nothing. Drop the stale hold and acquire afresh.
			this.holds.remove(this.name, hold);
		}
		L lease = this.backend.acquire(request, interruptible);
		if (lease == null) {
			return false;
		}
		this.holds.add(this.name, lease);
		return true;
	}

	/**
	 * Releases one hold; the outermost release frees the lock.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock, or if
	 * the lock was lost (expired or taken) while held, in which case nothing is freed
	 */
	@Override
	public void unlock() {
		Hold<L> hold = requireHold();
		if (--hold.count > 0) {
			return;
		}
		this.holds.remove(this.name, hold);
		if (!this.backend.releaseOwned(hold.lease)) {
			throw new IllegalMonitorStateException("Lock '" + this.name
					+ "' was lost while held: it expired, was deleted or was taken; nothing was released");
		}
	}

	@Override
	public boolean isLocked() {
		return this.backend.isLocked(this.name);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		Hold<L> hold = this.holds.ofCurrentThread(this.name);
		return hold != null && hold.lease.isValid();
	}

	@Override
	public int getHoldCount() {
		Hold<L> hold = this.holds.ofCurrentThread(this.name);
		return (hold != null) ? hold.count : 0;
	}

	@Override
	public long getFencingToken() {
		return requireHold().lease.fencingToken();
	}

	@Override
	public boolean forceUnlock() {
		return this.backend.forceUnlock(this.name);
	}

	private Hold<L> requireHold() {
		Hold<L> hold = this.holds.ofCurrentThread(this.name);
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + this.name + "' is not held by the current thread " + Thread.currentThread().getName());
		}
		return hold;
	}

	@Override
	public String toString() {
		return "RedisLock[" + this.name + "]";
	}

	/**
	 * Which thread of this JVM holds which lock of one manager, and how often: reentrancy is
	 * counted here, without asking the manager. One per manager, shared by its lock objects.
	 *
	 * @param <L> the manager's lease type
	 */
	public static final class Holds<L extends LockLease> {

		private final Map<String, Hold<L>> holds = new ConcurrentHashMap<>();

		@Nullable Hold<L> ofCurrentThread(String name) {
			Hold<L> hold = this.holds.get(name);
			return (hold != null && hold.thread == Thread.currentThread()) ? hold : null;
		}

		void add(String name, L lease) {
			this.holds.put(name, new Hold<>(Thread.currentThread(), lease));
		}

		/** Removes this hold only: another thread may hold the lock by now (this hold's lease was lost). */
		void remove(String name, Hold<L> hold) {
			this.holds.remove(name, hold);
		}

	}

	/** A thread's hold of one lock. Only that thread changes its count. */
	private static final class Hold<L> {

		private final Thread thread;

		private final L lease;

		private int count = 1;

		Hold(Thread thread, L lease) {
			this.thread = thread;
			this.lease = lease;
		}

	}

}
