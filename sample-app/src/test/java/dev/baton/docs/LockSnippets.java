package dev.baton.docs;

import java.time.Duration;
import java.util.Set;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.RedisLock;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.OnLockFailure;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The code of docs/locks.md, compiled. */
class LockSnippets {

	record Money(long cents) {
	}

	record Payment(long orderId, Money amount) {
	}

	interface Ledger {

		void settle(String accountId, long fencingToken);

	}

	@Service
	public class PaymentService {

		@DistributedLock(key = "#orderId", waitTime = "2s")
		@Transactional
		public Payment pay(long orderId, Money amount) {
			// one payment per order at a time, on every instance; the transaction runs inside the lock
			return new Payment(orderId, amount);
		}
	}

	class Baskets {

		@DistributedLock(name = "stock", key = "#skus", waitTime = "1s")
		public void reserve(Set<String> skus) {
			// every SKU of the basket is locked, or none
		}

		@Scheduled(cron = "0 0 2 * * *")
		@DistributedLock(name = "nightly-report", onFailure = OnLockFailure.SKIP, lockAtLeastFor = "5m")
		public void nightlyReport() {
			// runs on one instance per night; instances that find the lock taken skip their run
		}

	}

	class Settlements {

		private final LockManager locks;

		private final Ledger ledger;

		Settlements(LockManager locks, Ledger ledger) {
			this.locks = locks;
			this.ledger = ledger;
		}

		public void settle(String accountId) {
			try (LockLease lease = locks.tryAcquire("settlement:" + accountId, Duration.ofSeconds(1))
				.orElseThrow(() -> new IllegalStateException("settlement already running"))) {
				ledger.settle(accountId, lease.fencingToken());
			}
		}

		void adjust(String sku) throws InterruptedException {
			RedisLock lock = locks.getLock("inventory:" + sku);
			if (lock.tryLock(Duration.ofMillis(500), null)) {
				try {
					// a null lease time: renewed by the watchdog until unlock()
				}
				finally {
					lock.unlock();
				}
			}
		}

	}

}
