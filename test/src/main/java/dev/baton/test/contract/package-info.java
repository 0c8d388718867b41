/**
 * Contract suites to extend for an implementation of Baton's API:
 * {@link dev.baton.test.contract.LockManagerContractTests} for a
 * {@link dev.baton.lock.LockManager}, {@link dev.baton.test.contract.DelayQueueContractTests}
 * for {@link dev.baton.queue.DelayQueues}, and
 * {@link dev.baton.test.contract.ListenerContainerContractTests} for the {@code @DelayedTask}
 * listener container on such queues, and {@link dev.baton.test.contract.TaskHeldLockContractTests}
 * for queues whose tasks hold a lock of such a lock manager. Baton runs them on its Redis
 * implementations, on
 * {@link dev.baton.test.lock.InMemoryLockManager} and on
 * {@link dev.baton.test.queue.InMemoryDelayQueues}.
 */
@NullMarked
package dev.baton.test.contract;

import org.jspecify.annotations.NullMarked;
