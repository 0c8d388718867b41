package dev.baton.docs.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.test.lock.InMemoryLockManager;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** docs/testing.md: a unit test of code that takes Baton locks, with InMemoryLockManager. */
class SettlementsWithoutRedisTests {

	/** The settlement of docs/locks.md. */
	static class Settlements {

		private final LockManager locks;

		private final List<Long> ledger;

		Settlements(LockManager locks, List<Long> ledger) {
			this.locks = locks;
			this.ledger = ledger;
		}

		void settle(String accountId) {
			try (LockLease lease = locks.tryAcquire("settlement:" + accountId, Duration.ZERO)
				.orElseThrow(() -> new IllegalStateException("settlement already running"))) {
				ledger.add(lease.fencingToken());
			}
		}

	}

	AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

	InMemoryLockManager locks = new InMemoryLockManager(now::get);

	List<Long> ledger = new ArrayList<>();

	Settlements settlements = new Settlements(locks, ledger);

	@Test
	void settlesOnceTheCrashedHoldersLeaseRanOut() {
		InMemoryLockManager otherInstance = locks.anotherInstance();
		otherInstance.tryAcquire("settlement:7", Duration.ZERO).orElseThrow();
		otherInstance.close(); // crashed: nothing renews its lock, which runs out in 30 s

		assertThatIllegalStateException().isThrownBy(() -> settlements.settle("7"));
		now.set(now.get().plus(Duration.ofSeconds(30)));
		settlements.settle("7");
		assertThat(ledger).hasSize(1);
	}

}
