/**
 * A lock manager for fast unit tests without Redis:
 * {@link dev.baton.test.lock.InMemoryLockManager} keeps Baton's lock contract in memory, with
 * leases that run out on a clock the test controls.
 */
@NullMarked
package dev.baton.test.lock;

import org.jspecify.annotations.NullMarked;
