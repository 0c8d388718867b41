package dev.baton.lock.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The leases a lock manager holds, the acquisitions under way that may still add one (a waiter
 * in line can be handed the lock), and those who wait until there are neither: a graceful
 * shutdown closes the manager only then, so that no lease is granted that nothing renews.
 */
final class HeldLeases {

	private final Set<RedisLockLease> held = ConcurrentHashMap.newKeySet();

	private final AtomicInteger acquiring = new AtomicInteger();

	private final List<CompletableFuture<Void>> releaseAwaited = new ArrayList<>();

	/** Counts an acquisition under way, until {@link #acquired()}. */
	void acquiring() {
		this.acquiring.incrementAndGet();
	}

	/** Ends an acquisition under way, whether it added a lease or not. */
	void acquired() {
		this.acquiring.decrementAndGet();
		completeIfIdle();
	}

	void add(RedisLockLease lease) {
		this.held.add(lease);
	}

	/** Removes a lease; {@code true} if it was held until now. */
	boolean remove(RedisLockLease lease) {
		if (!this.held.remove(lease)) {
			return false;
		}
		completeIfIdle();
		return true;
	}

	Collection<RedisLockLease> leases() {
		return this.held;
	}

	int size() {
		return this.held.size();
	}

	boolean isEmpty() {
		return this.held.isEmpty();
	}

	/** A future that completes once nothing is held and no acquisition is under way. */
	CompletableFuture<Void> allReleased() {
		CompletableFuture<Void> released = new CompletableFuture<>();
		synchronized (this.releaseAwaited) {
			this.releaseAwaited.add(released);
		}
		completeIfIdle();
		return released;
	}

	private void completeIfIdle() {
		// Held is read after acquiring: an acquisition adds its lease before it stops counting.
		if (this.acquiring.get() != 0 || !this.held.isEmpty()) {
			return;
		}
		List<CompletableFuture<Void>> awaited;
		synchronized (this.releaseAwaited) {
			awaited = List.copyOf(this.releaseAwaited);
			this.releaseAwaited.clear();
		}
		awaited.forEach((future) -> future.complete(null));
	}

	@Override
	public String toString() {
		return this.held.toString();
	}

}
