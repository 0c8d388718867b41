package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.ConsumableQueue;
import org.apache.commons.logging.Log;

/**
 * Hands deliveries back to the queue, so that another instance takes them at once instead of
 * after their visibility timeout. A failure is logged, never thrown: the tasks still come back.
 */
final class HandBack {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final BatonThreads threads;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	HandBack(BatonThreads threads, ConsumableQueue<Object> queue, String queueName) {
		this.threads = threads;
		this.queue = queue;
		this.queueName = queueName;
	}

	void handBack(List<Delivery<Object>> deliveries) {
		try {
			this.queue.handBack(deliveries);
		}
		catch (Throwable ex) {
			logger.warn("Could not hand back " + deliveries.size() + " tasks of queue '" + this.queueName
					+ "'; they come back after the visibility timeout", ex);
		}
	}

	/** Hands back on a thread of its own, without waiting. */
	Thread handBackInBackground(List<Delivery<Object>> deliveries) {
		return this.threads.start("baton-queue-hand-back-" + this.queueName, () -> handBack(deliveries));
	}

	/** Hands back on a thread of its own, waiting at most {@code timeout} whatever Redis does. */
	void handBackWithin(List<Delivery<Object>> deliveries, Duration timeout) {
		Thread handingBack = handBackInBackground(deliveries);
		try {
			handingBack.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (handingBack.isAlive()) {
			logger.warn("Handing back " + deliveries.size() + " tasks of queue '" + this.queueName
					+ "' takes longer than " + timeout + "; if it fails they come back after the visibility timeout");
		}
	}

}
