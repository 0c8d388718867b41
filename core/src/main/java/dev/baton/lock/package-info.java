/**
 * Distributed locks on Redis: {@link dev.baton.lock.LockManager} hands out thread-owned,
 * reentrant {@link dev.baton.lock.RedisLock}s and thread-independent
 * {@link dev.baton.lock.LockLease}s.
 */
@NullMarked
package dev.baton.lock;

import org.jspecify.annotations.NullMarked;
