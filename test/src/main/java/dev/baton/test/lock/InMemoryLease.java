package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;

/**
 * A lease on a lock of a {@link LockTable}. Like a lease on a free Redis lock taken at once, it
 * has no fencing token until one is asked for, and gets one only while it holds the lock.
 */
final class InMemoryLease implements LockLease {

	private final LockTable table;

	private final InMemoryLockManager manager;

	private final LockRequest request;

	private final Instant acquiredAt;

	private volatile boolean released;

	private volatile long token;

	InMemoryLease(LockTable table, InMemoryLockManager manager, LockRequest request, Instant acquiredAt) {
		this.table = table;
		this.manager = manager;
		this.request = request;
		this.acquiredAt = acquiredAt;
	}

	InMemoryLockManager manager() {
		return this.manager;
	}

	@Override
	public String name() {
		return this.request.name();
	}

	@Override
	public synchronized long fencingToken() {
		if (this.token == 0) {
			long issued = this.released ? 0 : this.table.issueToken(this);
			if (issued == 0) {
				throw new IllegalStateException("Lock '" + name() + "' has no fencing token: this lease was "
						+ (this.released ? "released" : "lost") + " before one was asked for");
			}
			this.token = issued;
		}
		return this.token;
	}

	@Override
	public boolean isValid() {
		return !this.released && this.table.holds(this);
	}

	@Override
	public void release() {
		releaseOwned();
	}

	/**
	 * Releases the lock if this lease still holds it.
	 * @return {@code false} if the lease had been lost, so nothing was freed; {@code true} if it
	 * was freed now or released before
	 */
	boolean releaseOwned() {
		synchronized (this) {
			if (this.released) {
				return true;
			}
			this.released = true;
		}
		return this.table.release(this, null);
	}

	@Override
	public void release(Duration lockAtLeastFor) {
		synchronized (this) {
			if (this.released) {
				return;
			}
			this.released = true;
		}
		this.table.release(this, this.acquiredAt.plus(lockAtLeastFor));
	}

	@Override
	public String toString() {
		return "LockLease[" + name() + ", token " + this.token + ", " + (this.released ? "RELEASED" : "HELD") + "]";
	}

}
