package dev.baton.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisLock} owned by the thread that took it, reentrant like
 * {@link java.util.concurrent.locks.ReentrantLock}: only the outermost acquisition and release
 * go to Redis.
 */
final class ThreadOwnedRedisLock implements RedisLock {

	private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

	private final RedisLockManager manager;

	private final ThreadHolds holds;

	private final String name;

	private final String group;

	ThreadOwnedRedisLock(RedisLockManager manager, ThreadHolds holds, String name, String group) {
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
			// As java.util.concurrent.locks.Lock requires of an interruptible acquisition.
			throw new InterruptedException("Interrupted before acquiring lock '" + this.name + "'");
		}
		LockRequest request = LockRequest.of(this.name)
			.group(this.group)
			.waitTime(waitTime)
			.leaseTime(leaseTime)
			.build();
		ThreadHolds.Hold hold = this.holds.ofCurrentThread(this.name);
		if (hold != null) {
			if (hold.lease().isValid()) {
				hold.enter();
				return true;
			}
			// Lost while held: re-entering it would hold nothing. Drop the stale hold and acquire afresh.
			this.holds.remove(this.name, hold);
		}
		RedisLockLease lease = this.manager.acquire(request, interruptible);
		if (lease == null) {
			return false;
		}
		this.holds.add(this.name, lease);
		return true;
	}

	/**
	 * Releases one hold; the outermost release deletes the lock in Redis.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock, or if
	 * the lock was lost (expired or taken) while held, in which case nothing is deleted
	 */
	@Override
	public void unlock() {
		ThreadHolds.Hold hold = requireHold();
		if (!hold.exit()) {
			return;
		}
		this.holds.remove(this.name, hold);
		if (!hold.lease().releaseOwned()) {
			throw new IllegalMonitorStateException("Lock '" + this.name
					+ "' was lost while held: it expired, was deleted or was taken; nothing was released");
		}
	}

	@Override
	public boolean isLocked() {
		return this.manager.isLocked(this.name);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		ThreadHolds.Hold hold = this.holds.ofCurrentThread(this.name);
		return hold != null && hold.lease().isValid();
	}

	@Override
	public int getHoldCount() {
		ThreadHolds.Hold hold = this.holds.ofCurrentThread(this.name);
		return (hold != null) ? hold.count() : 0;
	}

	@Override
	public long getFencingToken() {
		return requireHold().lease().fencingToken();
	}

	@Override
	public boolean forceUnlock() {
		return this.manager.forceUnlock(this.name);
	}

	private ThreadHolds.Hold requireHold() {
		ThreadHolds.Hold hold = this.holds.ofCurrentThread(this.name);
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

}
