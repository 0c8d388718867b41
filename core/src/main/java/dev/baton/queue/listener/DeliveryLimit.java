package dev.baton.queue.listener;

import java.util.ArrayList;
import java.util.List;

import dev.baton.queue.Delivery;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Parks claimed tasks that were delivered more than {@link ListenerSettings#maxDeliveries()}
 * times (and at least {@code maxAttempts} times): dead-lettered, or deleted when the handler
 * keeps no dead letters, without running. A handler that crashes or stops its worker (OOM,
 * System.exit) never settles its task, which would otherwise be delivered for ever, each crash
 * also costing the other tasks of that instance a delivery.
 */
final class DeliveryLimit {

	private static final Log logger = LogFactory.getLog(DeliveryLimit.class);

	private final String queue;

	private final ListenerSettings settings;

	private final boolean deadLetter;

	private final HandlerMetrics metrics;

	DeliveryLimit(String queue, ListenerSettings settings, boolean deadLetter, HandlerMetrics metrics) {
		this.queue = queue;
		this.settings = settings;
		this.deadLetter = deadLetter;
		this.metrics = metrics;
	}

	/**
	 * Parks the deliveries beyond the limit, one Redis call each (a rare case).
	 * @return the deliveries that may run, in their order
	 */
	List<Delivery<Object>> admit(List<Delivery<Object>> deliveries) {
		if (deliveries.stream().noneMatch(this::exceeded)) {
			return deliveries;
		}
		List<Delivery<Object>> admitted = new ArrayList<>(deliveries.size());
		for (Delivery<Object> delivery : deliveries) {
			if (exceeded(delivery)) {
				park(delivery);
			}
			else {
				admitted.add(delivery);
			}
		}
		return admitted;
	}

	private boolean exceeded(Delivery<Object> delivery) {
		return this.settings.exceedsDeliveries(delivery.attempt());
	}

	private void park(Delivery<Object> delivery) {
		String reason = "delivered " + delivery.attempt() + " times, more than max-deliveries ("
				+ this.settings.maxDeliveries() + "), without succeeding: its handler may crash or stop the worker";
		logger.warn("Task '" + delivery.id() + "' of queue '" + this.queue + "' was " + reason
				+ (this.deadLetter ? "; dead-lettered" : "; deleted") + " without running");
		try {
			boolean parked = this.deadLetter ? delivery.deadLetter(reason) : delivery.ack();
			if (parked) {
				this.metrics.parked(this.queue);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not park task '" + delivery.id() + "' of queue '" + this.queue
					+ "'; it comes back after the visibility timeout", ex);
		}
	}

}
