package dev.baton.docs;

import java.util.List;

import dev.baton.lock.annotation.DistributedLock;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/** The snippets of docs/common-mistakes.md, compiled (none of them is a bean of a test). */
class CommonMistakesSnippets {

	// 1. the mistake
	static class SelfInvocation {

		@Service
		public class SettlementJob {

			@Scheduled(fixedDelay = 60_000)
			public void settleEverything() {
				for (long account : List.of(1L, 2L, 3L)) {
					settle(account); // this.settle(...): not through the proxy, so not locked
				}
			}

			@DistributedLock(key = "#account")
			public void settle(long account) {
				// one settlement per account at a time, on every instance
			}
		}

	}

	// 1. the fix
	static class ThroughTheBean {

		@Service
		public class SettlementJob {

			private final Settlements settlements;

			public SettlementJob(Settlements settlements) {
				this.settlements = settlements;
			}

			@Scheduled(fixedDelay = 60_000)
			public void settleEverything() {
				for (long account : List.of(1L, 2L, 3L)) {
					settlements.settle(account); // through the other bean's proxy: locked
				}
			}
		}

		@Service
		public class Settlements {

			@DistributedLock(key = "#account")
			public void settle(long account) {
				// one settlement per account at a time, on every instance
			}
		}

	}

	// 3. the mistake
	static class MismatchedQueue {

		@Service
		public class PaymentTimeouts {

			private final DelayQueue<String> timeouts;

			public PaymentTimeouts(@Qualifier("payment-timeout") DelayQueue<String> timeouts) {
				this.timeouts = timeouts;
			}

			@DelayedTask(queue = "payment-timeout")
			void cancelIfUnpaid(Long orderId) {
				// the handler takes a Long: the queue is a DelayQueue<Long>
			}
		}

	}

}
