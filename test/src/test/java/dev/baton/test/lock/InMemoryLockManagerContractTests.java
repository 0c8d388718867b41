package dev.baton.test.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockManager;
import dev.baton.test.contract.LockManagerContractTests;

/**
 * The lock contract for {@link InMemoryLockManager}, on a clock that the suite moves: the same
 * suite as Redis passes, without its waits.
 */
class InMemoryLockManagerContractTests extends LockManagerContractTests {

	private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T08:00:00Z"));

	private InMemoryLockManager first;

	@Override
	protected LockManager createLockManager(Duration leaseTime) {
		if (this.first == null) {
			this.first = new InMemoryLockManager(this.now::get, leaseTime);
			return this.first;
		}
		return this.first.anotherInstance(leaseTime);
	}

	@Override
	protected void passTime(Duration duration) {
		this.now.updateAndGet((instant) -> instant.plus(duration));
	}

}
