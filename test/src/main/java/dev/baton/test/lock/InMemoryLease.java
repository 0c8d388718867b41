package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
import org.jspecify.annotations.Nullable;

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

	boolean isReleased() {
		return this.released;
	}

	/**
	 * This lease as a held lock, at {@code now} on the clock.
	 * @param expiresAt when its lock frees itself, or {@code null} while it is renewed
	 * @param leaseTime how long a renewed lock stays held once renewals stop
	 */
	HeldLock describe(Instant now, @Nullable Instant expiresAt, Duration leaseTime) {
		Duration validFor = (expiresAt != null) ? Duration.between(now, expiresAt) : leaseTime;
		return new HeldLock(name(), this.request.group(), this.token, Duration.between(this.acquiredAt, now),
				validFor.isNegative() ? Duration.ZERO : validFor, expiresAt == null);
	}

	@Override
	public String toString() {
		return "LockLease[" + name() + ", token " + this.token + ", " + (this.released ? "RELEASED" : "HELD") + "]";
	}

}
