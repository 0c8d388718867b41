package dev.baton.lock;

/**
 * Published as an application event when this instance finds a lock it holds expired or taken by
 * another owner, e.g. because a long pause outlived the lease. Work protected by the lock may
 * now run concurrently elsewhere.
 *
 * @param name the lock that was lost
 * @param group the lock's metric group (the annotation's lock name for {@code @DistributedLock})
 * @param fencingToken the fencing token of the lost acquisition, 0 if none was issued
 */
public record LockLostEvent(String name, String group, long fencingToken) {

}
