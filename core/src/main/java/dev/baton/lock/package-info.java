/**
 * Distributed locks on Redis: {@link dev.baton.lock.LockManager} hands out thread-owned,
 * reentrant {@link dev.baton.lock.RedisLock}s and thread-independent
 * {@link dev.baton.lock.LockLease}s; {@link dev.baton.lock.LockManagerStatus} is what a lock
 * manager tells health checks, the actuator endpoint and a graceful shutdown.
 */
@NullMarked
package dev.baton.lock;

import org.jspecify.annotations.NullMarked;
