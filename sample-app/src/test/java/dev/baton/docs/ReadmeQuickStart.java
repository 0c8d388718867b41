package dev.baton.docs;

import java.time.Duration;

import dev.baton.lock.annotation.DistributedLock;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.stereotype.Service;

/** The quick start of the README, compiled. */
class ReadmeQuickStart {

	// README.md, "Quick start"
	@Service
	class Orders {

		private final DelayQueue<Long> timeouts;

		Orders(DelayQueue<Long> timeouts) { this.timeouts = timeouts; }

		@DistributedLock(key = "#orderId", waitTime = "2s")
		void pay(long orderId) { /* one payment per order at a time, across the fleet */ }

		void place(long orderId) { timeouts.schedule(String.valueOf(orderId), orderId, Duration.ofMinutes(30)); }

		@DelayedTask(queue = "order-timeout")
		void cancelIfUnpaid(Long orderId) { /* runs 30 minutes later, on one instance */ }
	}

}
