package dev.baton.docs;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.stereotype.Service;

/** The code of docs/getting-started.md, compiled. */
class GettingStartedSnippets {

	record Reminder(String userId, String text) {
	}

	// getting-started.md, step 3
	@Service
	public class InventoryService {

		@DistributedLock(key = "#sku", waitTime = "2s")
		public void reserve(String sku, int quantity) {
			// one reservation per SKU at a time, across every instance
		}
	}

	// getting-started.md, step 4
	@Service
	public class Reminders {

		private final DelayQueue<Reminder> queue;

		public Reminders(DelayQueue<Reminder> queue) {
			this.queue = queue;
		}

		public String remindLater(Reminder reminder) {
			return queue.schedule(reminder, Duration.ofMinutes(30));
		}

		@DelayedTask(queue = "reminders", maxAttempts = "3")
		void send(Reminder reminder, TaskContext task) {
			// runs once, 30 minutes later, on whichever instance is free;
			// task.id() and task.attempt() help make it idempotent
		}
	}

	// getting-started.md, step 5
	@Service
	public class Settlement {

		private final LockManager locks;

		public Settlement(LockManager locks) {
			this.locks = locks;
		}

		public void settle(String accountId) {
			try (LockLease lease = locks.tryAcquire("settlement:" + accountId, Duration.ofSeconds(1))
				.orElseThrow(() -> new IllegalStateException("settlement already running"))) {
				// pass lease.fencingToken() to the storage you write to, so a stale holder is refused
			}
		}
	}

}
