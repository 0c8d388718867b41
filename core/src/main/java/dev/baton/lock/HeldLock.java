package dev.baton.lock;

import java.time.Duration;

/**
 * A lock this instance holds now, as reported by {@link LockManagerStatus#heldLocks()}: for
 * operators and the actuator endpoint.
 *
 * @param name the lock name
 * @param group the lock's metric group
 * @param fencingToken the fencing token of the acquisition, 0 until the holder asked for one
 * @param heldFor how long it has been held
 * @param validFor how much longer the lease is known to be valid without a further renewal
 * @param renewed whether the watchdog renews it (taken without a lease time)
 */
public record HeldLock(String name, String group, long fencingToken, Duration heldFor, Duration validFor,
		boolean renewed) {

}
