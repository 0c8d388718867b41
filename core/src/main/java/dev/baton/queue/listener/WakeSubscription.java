package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.queue.spi.ConsumableQueue;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The container's subscription to its queue's wake-ups, which it passes to its
 * {@link ClaimPacer}. Without Redis subscribing fails, which must not fail the start (the
 * application starts while Redis is down): until a later claim succeeds and subscribes again,
 * the loop finds due tasks by polling.
 */
final class WakeSubscription {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	private final ClaimPacer pacer;

	/** How often the loop polls while it is not subscribed, for the log. */
	private final Duration shortPoll;

	private volatile @Nullable AutoCloseable subscription;

	WakeSubscription(ConsumableQueue<Object> queue, String queueName, ClaimPacer pacer, Duration shortPoll) {
		this.queue = queue;
		this.queueName = queueName;
		this.pacer = pacer;
		this.shortPoll = shortPoll;
	}

	/** Subscribes, or logs why it could not. */
	void subscribe() {
		try {
			this.subscription = this.queue.onSignal(this.pacer::signal);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not subscribe to wake-ups of queue '" + this.queueName + "' (" + ex.getMessage()
					+ "); polling every " + this.shortPoll.toMillis() + " ms until it succeeds");
		}
	}

	boolean isSubscribed() {
		return this.subscription != null;
	}

	void close() {
		AutoCloseable subscription = this.subscription;
		if (subscription == null) {
			return;
		}
		try {
			subscription.close();
		}
		catch (Exception ex) {
			logger.debug("Could not stop wake-ups of queue '" + this.queueName + "'", ex);
		}
	}

}
