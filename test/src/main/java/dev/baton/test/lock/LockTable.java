package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The locks of every {@link InMemoryLockManager} instance made from one another: what Redis holds
 * for Baton's Redis lock managers. One monitor guards it all; waiters are woken by releases and
 * look at the clock again every {@link #RECHECK_NANOS}, so that a lease that ran out because the
 * clock moved frees its lock for them.
 */
final class LockTable {

	private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final ReentrantLock monitor = new ReentrantLock();

	private final Condition released = this.monitor.newCondition();

	private final InstantSource clock;

	/** The holder of each lock that is taken, perhaps run out: read through {@link #entry}. */
	private final Map<String, Entry> entries = new HashMap<>();

	/** The last fencing token issued for each name; kept when the lock is freed, as Redis keeps it. */
	private final Map<String, Long> fences = new HashMap<>();

	private int instances;

	LockTable(InstantSource clock) {
		this.clock = clock;
	}

	Instant now() {
		return this.clock.instant();
	}

	String nextInstanceName() {
		this.monitor.lock();
		try {
			return "in-memory-" + (++this.instances);
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Takes the lock for a new lease of the manager, waiting up to the request's wait time (real
	 * time, not the clock's).
	 * @return the lease, or {@code null} if the wait ran out
	 */
	@Nullable InMemoryLease acquire(InMemoryLockManager manager, LockRequest request, boolean interruptible)
			throws InterruptedException {
		long deadline = System.nanoTime() + nanos(request.waitTime());
		boolean interrupted = false;
		this.monitor.lock();
		try {
			while (true) {
				manager.requireOpen(request.name());
				if (entry(request.name()) == null) {
					Instant now = now();
					InMemoryLease lease = new InMemoryLease(this, manager, request, now);
					Instant expiresAt = (request.leaseTime() != null) ? now.plus(request.leaseTime()) : now;
					this.entries.put(request.name(), new Entry(lease, expiresAt, request.leaseTime() == null, null));
					return lease;
				}
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return null;
				}
				try {
					this.released.awaitNanos(Math.min(left, RECHECK_NANOS));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					// As Baton's Redis locks do: the wait goes on, and the interrupt is restored after it.
					interrupted = true;
				}
			}
		}
		finally {
			this.monitor.unlock();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static long nanos(Duration duration) {
		try {
			return Math.min(duration.toNanos(), Long.MAX_VALUE / 2);
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

	/** The live entry of the name, or {@code null}: an entry whose time ran out is dropped. */
	private @Nullable Entry entry(String name) {
		Entry entry = this.entries.get(name);
		if (entry != null && !entry.renewed && !now().isBefore(entry.expiresAt)) {
			this.entries.remove(name);
			return null;
		}
		return entry;
	}

	/** Whether the lease is the lock's owner now, and has not handed it over. */
	boolean holds(InMemoryLease lease) {
		this.monitor.lock();
		try {
			Entry entry = entry(lease.name());
			return entry != null && entry.owner == lease && entry.handedTo == null;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Issues the next fencing token of the lease's name if the lease still holds its lock.
	 * @return the token, or 0 if it does not
	 */
	long issueToken(InMemoryLease lease) {
		this.monitor.lock();
		try {
			if (!holds(lease)) {
				return 0;
			}
			long token = this.fences.getOrDefault(lease.name(), 0L) + 1;
			this.fences.put(lease.name(), token);
			return token;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Frees the lock if the lease owns it, at once or when {@code keepUntil} is reached.
	 * @return whether the lease owned the lock
	 */
	boolean release(InMemoryLease lease, @Nullable Instant keepUntil) {
		this.monitor.lock();
		try {
			if (!holds(lease)) {
				return false;
			}
			if (keepUntil != null && now().isBefore(keepUntil)) {
				this.entries.put(lease.name(), new Entry(lease, keepUntil, false, null));
			}
			else {
				this.entries.remove(lease.name());
				this.released.signalAll();
			}
			return true;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/** The manager was closed: nothing renews its leases, which now run out one lease from now. */
	void stopRenewing(InMemoryLockManager manager, Duration leaseTime) {
		this.monitor.lock();
		try {
			Instant now = now();
			this.entries.replaceAll((name, entry) -> (entry.owner.manager() == manager && entry.renewed)
					? entry.unrenewed(now, leaseTime) : entry);
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * The locks the manager's leases hold now, not counting those their holder released to be
	 * kept for a while ({@code release(lockAtLeastFor)}).
	 * @param leaseTime how long the manager's renewed locks stay held once renewals stop
	 */
	List<HeldLock> heldBy(InMemoryLockManager manager, Duration leaseTime) {
		this.monitor.lock();
		try {
			Instant now = now();
			List<HeldLock> held = new ArrayList<>();
			for (String name : List.copyOf(this.entries.keySet())) {
				Entry entry = entry(name);
				if (entry != null && entry.isHeldBy(manager)) {
					held.add(entry.owner.describe(now, entry.expiresAt, entry.renewed, leaseTime));
				}
			}
			return held;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Makes the lease's lock last at least {@code leaseTime} from now, never shorter.
	 * @return whether the lease holds its lock
	 */
	boolean extend(InMemoryLease lease, Duration leaseTime) {
		this.monitor.lock();
		try {
			if (!holds(lease)) {
				return false;
			}
			Entry entry = this.entries.get(lease.name());
			this.entries.put(lease.name(), entry.extendedTo(now().plus(leaseTime)));
			return true;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Leaves the lease's lock to a token: a new owner with a fresh secret, and no more renewals,
	 * so that it runs out one lease time of the manager from now unless it was extended further.
	 * @return the new owner, or {@code null} if the lease no longer holds its lock
	 */
	@Nullable String handOver(InMemoryLease lease) {
		this.monitor.lock();
		try {
			if (!holds(lease) || !lease.handingOver()) {
				return null;
			}
			String owner = LeaseToken.newOwner(lease.manager().instanceName());
			Entry entry = this.entries.get(lease.name());
			this.entries.put(lease.name(),
					entry.unrenewed(now(), lease.manager().leaseTime()).handedTo(owner));
			return owner;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Gives the lock handed over to the token a lease of the manager, in one step, so that the
	 * token restores once: it keeps the token's fencing token and the lock's expiry, and is renewed
	 * while the manager is open if the token has no lease time.
	 * @return the lease, invalid if the lock ran out, was released or has another owner
	 */
	InMemoryLease restore(InMemoryLockManager manager, LeaseToken token) {
		this.monitor.lock();
		try {
			manager.requireOpen(token.name());
			Entry entry = entry(token.name());
			boolean handedToToken = entry != null && token.owner().equals(entry.handedTo);
			InMemoryLease lease = InMemoryLease.restored(this, manager, token, now(), handedToToken);
			if (handedToToken) {
				this.entries.put(token.name(), new Entry(lease, entry.expiresAt, token.leaseTime() == null, null));
			}
			return lease;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Makes the lock handed over to the token last at least {@code atLeast} from now, never
	 * shorter, if the token still holds it.
	 * @return whether the token holds its lock
	 */
	boolean extend(LeaseToken token, Duration atLeast) {
		this.monitor.lock();
		try {
			Entry entry = handedTo(token);
			if (entry != null) {
				this.entries.put(token.name(), entry.extendedTo(now().plus(atLeast)));
			}
			return entry != null;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Frees the lock handed over to the token if the token still holds it.
	 * @return whether it did
	 */
	boolean release(LeaseToken token) {
		this.monitor.lock();
		try {
			if (handedTo(token) == null) {
				return false;
			}
			this.entries.remove(token.name());
			this.released.signalAll();
			return true;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Gives the lock handed over to the token back to the lease that handed it over, keeping its
	 * expiry; renewed again if the lease is and its manager is open.
	 * @return whether the token still held the lock, so that the lease holds it again
	 */
	boolean takeBack(InMemoryLease lease, LeaseToken token) {
		this.monitor.lock();
		try {
			Entry entry = handedTo(token);
			if (entry == null || entry.owner != lease || !lease.takenBack()) {
				return false;
			}
			boolean renewed = lease.leaseTime() == null && lease.manager().isOpen();
			this.entries.put(token.name(), new Entry(lease, entry.expiresAt, renewed, null));
			return true;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/** The live entry of the token's lock if the lock is handed over to that token, or {@code null}. */
	private @Nullable Entry handedTo(LeaseToken token) {
		Entry entry = entry(token.name());
		return (entry != null && token.owner().equals(entry.handedTo)) ? entry : null;
	}

	/**
	 * Frees every lock that a lease of the manager holds, marking those leases lost; not those
	 * released to be kept a while, nor those handed over.
	 * @return how many were freed
	 */
	int releaseAll(InMemoryLockManager manager) {
		this.monitor.lock();
		try {
			int released = 0;
			for (String name : List.copyOf(this.entries.keySet())) {
				Entry entry = entry(name);
				if (entry != null && entry.isHeldBy(manager) && entry.owner.markLost()) {
					this.entries.remove(name);
					released++;
				}
			}
			this.released.signalAll();
			return released;
		}
		finally {
			this.monitor.unlock();
		}
	}

	boolean isLocked(String name) {
		this.monitor.lock();
		try {
			return entry(name) != null;
		}
		finally {
			this.monitor.unlock();
		}
	}

	@Nullable String holderOf(String name) {
		this.monitor.lock();
		try {
			Entry entry = entry(name);
			return (entry != null) ? entry.owner.manager().instanceName() : null;
		}
		finally {
			this.monitor.unlock();
		}
	}

	boolean forceUnlock(String name) {
		this.monitor.lock();
		try {
			boolean deleted = entry(name) != null;
			this.entries.remove(name);
			this.released.signalAll();
			return deleted;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * The owner of a taken lock.
	 * @param owner the lease that took it, or that handed it over
	 * @param expiresAt when the lock frees itself unless renewed; while renewed, the time it is
	 * held until at least once renewals stop (an extension)
	 * @param renewed whether it is renewed, and so never runs out
	 * @param handedTo the owner id of the token it was handed over to, or {@code null}
	 */
	private record Entry(InMemoryLease owner, Instant expiresAt, boolean renewed, @Nullable String handedTo) {

		boolean isHeldBy(InMemoryLockManager manager) {
			return this.owner.manager() == manager && this.handedTo == null && this.owner.isHeld();
		}

		Entry extendedTo(Instant until) {
			return until.isAfter(this.expiresAt) ? new Entry(this.owner, until, this.renewed, this.handedTo) : this;
		}

		/** No more renewals from {@code now}: it runs out a lease time later, or when extended to. */
		Entry unrenewed(Instant now, Duration leaseTime) {
			return this.renewed ? new Entry(this.owner, this.expiresAt, false, this.handedTo)
				.extendedTo(now.plus(leaseTime)) : this;
		}

		Entry handedTo(String owner) {
			return new Entry(this.owner, this.expiresAt, this.renewed, owner);
		}

	}

}
