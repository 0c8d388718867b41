package dev.baton.sample.orders;

import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/** Cancels orders still unpaid when their {@code order-timeout} task falls due. */
@Component
class OrderTimeoutHandler {

	private static final Log logger = LogFactory.getLog(OrderTimeoutHandler.class);

	private final OrderService orders;

	OrderTimeoutHandler(OrderService orders) {
		this.orders = orders;
	}

	@DelayedTask(queue = "order-timeout", concurrency = "4")
	void cancelIfUnpaid(Long orderId, TaskContext task) {
		if (this.orders.cancelIfUnpaid(orderId)) {
			logger.info("Cancelled unpaid order " + orderId + " (attempt " + task.attempt() + ")");
		}
	}

}
