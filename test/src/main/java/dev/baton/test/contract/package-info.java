/**
 * Contract suites to extend for an implementation of Baton's API:
 * {@link dev.baton.test.contract.LockManagerContractTests} for a
 * {@link dev.baton.lock.LockManager}, {@link dev.baton.test.contract.DelayQueueContractTests}
 * for {@link dev.baton.queue.DelayQueues}. Baton runs them on its Redis implementations and on
 * {@link dev.baton.test.lock.InMemoryLockManager}.
 */
@NullMarked
package dev.baton.test.contract;

import org.jspecify.annotations.NullMarked;
