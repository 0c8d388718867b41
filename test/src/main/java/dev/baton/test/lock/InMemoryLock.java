package dev.baton.test.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisLock} of an {@link InMemoryLockManager}: owned by the thread that took it and
 * reentrant, the holds counted per manager as Baton's Redis lock manager counts them.
 */
final class InMemoryLock implements RedisLock {

	private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

	private final InMemoryLockManager manager;

	private final Map<String, Hold> holds;

	private final String name;

	private final String group;

	InMemoryLock(InMemoryLockManager manager, Map<String, Hold> holds, String name, String group) {
		this.manager = manager;
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
			throw new InterruptedException("Interrupted before acquiring lock '" + this.name + "'");
		}
		LockRequest request = LockRequest.of(this.name).group(this.group).waitTime(waitTime).leaseTime(leaseTime).build();
		Hold hold = ofCurrentThread();
		if (hold != null) {
			if (hold.lease.isValid()) {
				hold.count++;
				return true;
			}
			// Lost while held: drop the stale hold and acquire afresh, as the Redis lock does.
			this.holds.remove(this.name, hold);
		}
		InMemoryLease lease = this.manager.acquire(request, interruptible);
		if (lease == null) {
			return false;
		}
		this.holds.put(this.name, new Hold(Thread.currentThread(), lease));
		return true;
	}

	@Override
	public void unlock() {
		Hold hold = requireHold();
		if (--hold.count > 0) {
			return;
		}
		this.holds.remove(this.name, hold);
		if (!hold.lease.releaseOwned()) {
			throw new IllegalMonitorStateException("Lock '" + this.name
					+ "' was lost while held: it expired, was deleted or was taken; nothing was released");
		}
	}

	@Override
	public boolean isLocked() {
		return this.manager.table().isLocked(this.name);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		Hold hold = ofCurrentThread();
		return hold != null && hold.lease.isValid();
	}

	@Override
	public int getHoldCount() {
		Hold hold = ofCurrentThread();
		return (hold != null) ? hold.count : 0;
	}

	@Override
	public long getFencingToken() {
		return requireHold().lease.fencingToken();
	}

	@Override
	public boolean forceUnlock() {
		return this.manager.table().forceUnlock(this.name);
	}

	private @Nullable Hold ofCurrentThread() {
		Hold hold = this.holds.get(this.name);
		return (hold != null && hold.thread == Thread.currentThread()) ? hold : null;
	}

	private Hold requireHold() {
		Hold hold = ofCurrentThread();
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + this.name + "' is not held by the current thread " + Thread.currentThread().getName());
		}
		return hold;
	}

	@Override
	public String toString() {
		return "RedisLock[" + this.name + "] (in memory)";
	}

	/** A thread's hold of one lock. Only that thread changes its count. */
	static final class Hold {

		private final Thread thread;

		private final InMemoryLease lease;

		private int count = 1;

		Hold(Thread thread, InMemoryLease lease) {
			this.thread = thread;
			this.lease = lease;
		}

	}

}
