/**
 * The Redis engine of Baton's locks: {@link dev.baton.lock.redis.RedisLockManager} and what it is
 * made of (the scripts and their keys, the waiting line, the watchdog, release retries).
 */
@NullMarked
package dev.baton.lock.redis;

import org.jspecify.annotations.NullMarked;
