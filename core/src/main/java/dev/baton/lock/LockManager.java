package dev.baton.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Entry point to Baton's distributed locks.
 *
 * <p>Two styles are offered: {@link #getLock(String)} returns a thread-owned, reentrant
 * {@link RedisLock} that behaves like a {@link java.util.concurrent.locks.ReentrantLock};
 * {@link #tryAcquire(String, Duration)} returns a {@link LockLease} that any thread may release,
 * for try-with-resources, asynchronous code and virtual threads.
 */
public interface LockManager {

	/**
	 * Return the lock of the given name. Cheap: nothing is sent to Redis until the lock is used.
	 * Its metrics are tagged with the {@linkplain LockRequest#defaultGroup(String) default group}
	 * of the name: the part before the first colon ({@code inventory} for {@code inventory:42}).
	 * @param name the lock name, not blank
	 * @return the lock
	 * @throws IllegalArgumentException if the name is blank or too long
	 */
	default RedisLock getLock(String name) {
		return getLock(name, LockRequest.defaultGroup(name));
	}

	/**
	 * Return the lock of the given name, its metrics tagged with the given group.
	 * @param name the lock name, not blank, e.g. {@code inventory:42}
	 * @param group the low-cardinality name that metrics are tagged with, e.g. {@code inventory}
	 * @return the lock
	 * @throws IllegalArgumentException if the name is blank or too long
	 */
	RedisLock getLock(String name, String group);

	/**
	 * Try to acquire the named lock, waiting up to {@code waitTime}. The lease is renewed by the
	 * watchdog until it is released.
	 * @param name the lock name, not blank
	 * @param waitTime how long to wait for the lock; {@link Duration#ZERO} tries once
	 * @return the lease, or empty if the lock was not acquired in time
	 */
	default Optional<LockLease> tryAcquire(String name, Duration waitTime) {
		return tryAcquire(name, waitTime, null);
	}

	/**
	 * Try to acquire the named lock, waiting up to {@code waitTime}.
	 * @param name the lock name, not blank
	 * @param waitTime how long to wait for the lock; {@link Duration#ZERO} tries once
	 * @param leaseTime how long the lock is held unless released earlier, or {@code null} to
	 * have the watchdog renew it until it is released
	 * @return the lease, or empty if the lock was not acquired in time
	 */
	default Optional<LockLease> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(LockRequest.of(name).waitTime(waitTime).leaseTime(leaseTime).build());
	}

	/**
	 * Try to acquire a lock as described by the request.
	 * @param request what to lock, for how long, and under which metric tag
	 * @return the lease, or empty if the lock was not acquired in time
	 */
	Optional<LockLease> tryAcquire(LockRequest request);

	/**
	 * Which instance holds the named lock now, by the name its lock manager was given; asks Redis
	 * once. Meant for explaining a lock that was not acquired, so it never fails.
	 * @param name the lock name, not blank
	 * @return the holder's instance name, or empty if the lock is free, its holder wrote no
	 * instance name, or Redis could not be asked
	 */
	default Optional<String> holderOf(String name) {
		return Optional.empty();
	}

	/**
	 * Take over a lock that another thread, process or host {@linkplain LockLease#handOver()
	 * handed over}: in one owner-checked step the lock gets a new owner id of this instance, so
	 * that the token cannot be restored twice, and the lease keeps the token's fencing token. A
	 * lock that was taken without a lease time is renewed by this instance's watchdog from now on.
	 * @param token the token
	 * @return the lease; if the lock ran out, was released or is held by another owner (the token
	 * restored before, or a new acquisition), an invalid lease whose {@code fencingToken()},
	 * {@code extend} and {@code handOver} throw {@link LeaseLostException} and whose release
	 * changes nothing
	 * @throws LockUnavailableException if Redis did not answer in time; the lock is then given back
	 * to the token (a change of owner sent without waiting, after the call), so that the token can
	 * be restored again once Redis answers
	 * @throws UnsupportedOperationException if this lock manager cannot restore leases
	 */
	default LockLease restore(LeaseToken token) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot restore leases");
	}

	/**
	 * Release every lock this instance holds, as an operator would free them: each lease is then
	 * invalid, and its holder, if its code still runs, learns it from {@code isValid()} and a
	 * {@link LockLostEvent} (a released lock is free for others at once, so that code must not go
	 * on as if it still held it). Leases handed over are not this instance's any more.
	 * @return how many leases were released
	 * @throws UnsupportedOperationException if this lock manager cannot release all
	 */
	default int releaseAll() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot release all its locks");
	}

	/**
	 * Run the action while holding the named lock.
	 * @param name the lock name, not blank
	 * @param waitTime how long to wait for the lock
	 * @param action what to run while holding the lock
	 * @param <T> the action's result type
	 * @return what the action returned
	 * @throws LockNotAcquiredException if the lock was not acquired in time
	 */
	default <T> T withLock(String name, Duration waitTime, Supplier<T> action) {
		LockLease lease = tryAcquire(name, waitTime)
			.orElseThrow(() -> new LockNotAcquiredException(name, waitTime, holderOf(name)));
		try {
			return action.get();
		}
		finally {
			lease.release();
		}
	}

	/**
	 * Run the action while holding the named lock.
	 * @param name the lock name, not blank
	 * @param waitTime how long to wait for the lock
	 * @param action what to run while holding the lock
	 * @throws LockNotAcquiredException if the lock was not acquired in time
	 */
	default void withLock(String name, Duration waitTime, Runnable action) {
		withLock(name, waitTime, () -> {
			action.run();
			return null;
		});
	}

}
