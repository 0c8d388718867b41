package dev.baton.docs;

import java.time.Duration;
import java.time.Instant;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.Delivery;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskContext;
import dev.baton.queue.TaskPage;
import dev.baton.queue.annotation.Backoff;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.DefaultDelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/** The code of docs/delayed-tasks.md, compiled. */
class DelayedTaskSnippets {

	record Order(String id) {
	}

	record OrderTimeout(String orderId) {
	}

	interface Orders {

		void cancelIfUnpaid(String orderId);

	}

	static class TransientException extends RuntimeException {

	}

	static class Handler {

		private final Orders orders;

		Handler(Orders orders) {
			this.orders = orders;
		}

		@Component
		class OrderTimeouts {

			private final DelayQueue<OrderTimeout> timeouts;

			OrderTimeouts(DelayQueue<OrderTimeout> timeouts) { // or @Qualifier("order-timeouts")
				this.timeouts = timeouts;
			}

			void orderPlaced(Order order) {
				this.timeouts.schedule(order.id(), new OrderTimeout(order.id()), Duration.ofMinutes(30));
			}

			@DelayedTask(queue = "order-timeouts", concurrency = "4", maxAttempts = "5",
					backoff = @Backoff(initial = "1s", multiplier = "2", max = "5m"))
			void cancelIfUnpaid(OrderTimeout timeout, TaskContext context) {
				// idempotent: context.id() is the task id, context.attempt() starts at 1
				orders.cancelIfUnpaid(timeout.orderId());
			}

		}

	}

	static class ManualConsumer {

		private static final Logger log = LoggerFactory.getLogger(ManualConsumer.class);

		void consume(DelayQueues delayQueues, Order order) {
			DelayQueue<OrderTimeout> queue = delayQueues.get("order-timeouts", OrderTimeout.class);

			queue.schedule(order.id(), new OrderTimeout(order.id()), Duration.ofMinutes(30));

			for (Delivery<OrderTimeout> delivery : queue.poll(50)) {
				try {
					cancelIfUnpaid(delivery.payload());
					delivery.ack();
				}
				catch (TransientException ex) {
					delivery.retry(Duration.ofSeconds(10 * delivery.attempt()));
				}
				catch (Exception ex) {
					delivery.deadLetter(ex.getMessage());
				}
			}
		}

		void inspect(DelayQueue<OrderTimeout> queue) {
			for (DeadLetter<OrderTimeout> dead : queue.deadLetters(100)) {   // most recent first
				log.warn("{} failed after {} attempts at {}: {}", dead.id(), dead.attempts(),
						dead.failedAt(), dead.reason());
			}
			queue.redrive("order-42");          // back on the queue, due now, attempts reset
			queue.purgeDeadLetter("order-43");  // gone for good
		}

		void dueTomorrow(DelayQueue<OrderTimeout> queue) {
			Instant from = Instant.parse("2026-12-01T00:00:00Z");
			Instant to = from.plus(Duration.ofDays(1));
			long count = queue.countDueBetween(from, to);
			String token = null;
			do {
				TaskPage<OrderTimeout> page = queue.dueBetween(from, to, 200, token);
				for (ScheduledTask<OrderTimeout> task : page.tasks()) {
					report(task.id(), task.dueAt(), task.payload());
				}
				token = page.nextPageToken();
			}
			while (token != null);
			log.info("{} due", count);
		}

		void report(String id, Instant dueAt, OrderTimeout timeout) {
		}

		void cancelIfUnpaid(OrderTimeout timeout) {
		}

	}

	static class ErrorHandlerConfiguration {

		@Bean
		DelayedTaskErrorHandler delayedTaskErrorHandler() {
			return new DefaultDelayedTaskErrorHandler().addNotRetryableExceptions(IllegalArgumentException.class);
		}

	}

}
