package dev.baton.test.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueues;
import dev.baton.test.contract.TaskHeldLockContractTests;
import dev.baton.test.lock.InMemoryLockManager;

/**
 * The contract of tasks that hold a lock for {@link InMemoryDelayQueues} with
 * {@link InMemoryLockManager}: the same suite as Redis passes, on one clock that the suite moves
 * for both the locks and the tasks, without its waits.
 */
class InMemoryTaskHeldLockContractTests extends TaskHeldLockContractTests {

	private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T08:00:00Z"));

	private InMemoryLockManager firstLocks;

	private InMemoryDelayQueues firstQueues;

	@Override
	protected LockManager createLockManager(Duration leaseTime) {
		if (this.firstLocks == null) {
			this.firstLocks = new InMemoryLockManager(this.now::get, leaseTime);
			return this.firstLocks;
		}
		return this.firstLocks.anotherInstance(leaseTime);
	}

	@Override
	protected DelayQueues createDelayQueues(LockManager lockManager) {
		if (this.firstQueues == null) {
			this.firstQueues = new InMemoryDelayQueues(this.now::get);
			return this.firstQueues.lockManager(lockManager);
		}
		return this.firstQueues.anotherInstance().lockManager(lockManager);
	}

	@Override
	protected void passTime(Duration duration) {
		this.now.updateAndGet((instant) -> instant.plus(duration));
	}

}
