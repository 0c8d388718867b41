/**
 * What a {@link dev.baton.lock.LockManager} implementation builds on: the thread-owned, reentrant
 * {@link dev.baton.lock.RedisLock} that Baton's Redis and in-memory managers share, and the
 * {@link dev.baton.lock.spi.TokenLeases} that delayed tasks holding a lock need.
 */
@NullMarked
package dev.baton.lock.spi;

import org.jspecify.annotations.NullMarked;
