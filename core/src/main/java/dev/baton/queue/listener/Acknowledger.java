package dev.baton.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.Delivery;
import dev.baton.queue.internal.ConsumableQueue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Acknowledges the deliveries of successful handlers in batches, on a thread of its own: while
 * one batch is on its way to Redis the next one gathers, so a busy queue pays one round trip for
 * many acknowledgements and an idle one still acknowledges at once. Each delivery's callback
 * runs once its batch was sent, whatever the outcome.
 */
final class Acknowledger {

	private static final Log logger = LogFactory.getLog(Acknowledger.class);

	private static final int MAX_BATCH = 1000;

	private static final long POLL_MILLIS = 100;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();

	private volatile boolean open = true;

	private @Nullable Thread thread;

	Acknowledger(ConsumableQueue<Object> queue, String queueName) {
		this.queue = queue;
		this.queueName = queueName;
	}

	void start() {
		Thread thread = new Thread(this::run, "baton-ack-" + this.queueName);
		thread.setDaemon(true);
		this.thread = thread;
		thread.start();
	}

	void acknowledge(Delivery<Object> delivery, Runnable done) {
		this.pending.add(new Pending(delivery, done));
	}

	/** Acknowledges what is still pending, waiting at most {@code timeout}, and stops. */
	void close(Duration timeout) {
		this.open = false;
		Thread thread = this.thread;
		if (thread == null) {
			return;
		}
		try {
			thread.join(Math.max(timeout.toMillis(), POLL_MILLIS * 2));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		List<Pending> batch = new ArrayList<>();
		while (this.open || !this.pending.isEmpty()) {
			try {
				Pending first = this.pending.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				batch.add(first);
				this.pending.drainTo(batch, MAX_BATCH - 1);
				this.queue.acknowledge(batch.stream().map(Pending::delivery).toList());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Could not acknowledge " + batch.size() + " tasks of queue '" + this.queueName
						+ "'; they come back after the visibility timeout", ex);
			}
			finally {
				batch.forEach((sent) -> sent.done().run());
				batch.clear();
			}
		}
	}

	private record Pending(Delivery<Object> delivery, Runnable done) {
	}

}
