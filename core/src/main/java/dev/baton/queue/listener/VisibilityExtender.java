package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.Delivery;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.PartialSettlementException;
import dev.baton.queue.listener.HandlerMetrics.StaleOperation;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Extends the visibility of every held delivery in one call, a third of the visibility timeout
 * after the last extension that succeeded; a failed one is tried again within a tenth of that,
 * until it succeeds. Deliveries Redis answers as stale are reported {@link HeldDeliveries#lost lost}.
 */
final class VisibilityExtender {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	/** How often per extension period a failed extension is tried again. */
	private static final int RETRIES_PER_PERIOD = 10;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	private final Duration visibilityTimeout;

	private final HeldDeliveries held;

	private @Nullable ScheduledExecutorService timer;

	/** Extensions that failed in a row; only the timer thread reads and writes it. */
	private int failedExtensions;

	/** When extensions started failing in a row, as {@link System#nanoTime()}, or 0 while they succeed. */
	private volatile long failingSince;

	VisibilityExtender(ConsumableQueue<Object> queue, String queueName, Duration visibilityTimeout,
			HeldDeliveries held) {
		this.queue = queue;
		this.queueName = queueName;
		this.visibilityTimeout = visibilityTimeout;
		this.held = held;
	}

	/** Extends on {@code timer} until it is shut down. */
	void start(ScheduledExecutorService timer) {
		this.timer = timer;
		scheduleExtension(periodNanos());
	}

	/** When extensions started failing in a row, as {@link System#nanoTime()}, or 0 while they succeed. */
	long failingSince() {
		return this.failingSince;
	}

	/**
	 * A third of the visibility timeout: the time between extensions, and the bound of each
	 * extension call ({@code ConsumableQueue#extendVisibility}).
	 */
	private long periodNanos() {
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), this.visibilityTimeout.toNanos() / 3);
	}

	/**
	 * Extends, then schedules the next extension a period after this one was sent if it
	 * succeeded (a fixed rate from the last success), or soon if it failed: a failed call may
	 * have taken its whole bound, a period, and waiting another period would reach Redis only at
	 * the last confirmed deadline, when another consumer may take the tasks.
	 */
	private void extendAndReschedule() {
		long sent = System.nanoTime();
		long period = periodNanos();
		long next = extendVisibility() ? period - (System.nanoTime() - sent) : period / RETRIES_PER_PERIOD;
		scheduleExtension(next);
	}

	private void scheduleExtension(long delayNanos) {
		ScheduledExecutorService timer = this.timer;
		if (timer == null || timer.isShutdown()) {
			return;
		}
		try {
			timer.schedule(this::extendAndReschedule, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Stopping shut the timer down meanwhile
		}
	}

	/**
	 * Extends the visibility of every held delivery; returns whether Redis answered for all. The
	 * deliveries of partitions that answered are confirmed even when another partition failed.
	 */
	private boolean extendVisibility() {
		List<Delivery<Object>> deliveries = this.held.notAbandoned();
		if (deliveries.isEmpty()) {
			succeeded();
			return true;
		}
		long sent = System.nanoTime();
		Set<Delivery<Object>> unsettled = Set.of();
		List<Delivery<Object>> stale;
		Throwable failure = null;
		try {
			stale = this.queue.extendVisibility(deliveries, this.visibilityTimeout);
		}
		catch (PartialSettlementException ex) {
			unsettled = Set.copyOf(ex.<Object>unsettled());
			stale = ex.stale();
			failure = ex;
		}
		catch (Throwable ex) {
			// Any Throwable: an uncaught one would end the extensions for good
			failed(deliveries.size(), ex);
			return false;
		}
		long visibleUntil = sent + this.visibilityTimeout.toNanos();
		for (Delivery<Object> delivery : deliveries) {
			HeldDelivery holding = unsettled.contains(delivery) ? null : this.held.get(delivery);
			if (holding != null) {
				holding.visibleAtLeastUntil(visibleUntil);
			}
		}
		if (!stale.isEmpty()) {
			this.held.lost(stale, StaleOperation.EXTEND);
		}
		if (failure != null) {
			failed(unsettled.size(), failure);
			return false;
		}
		succeeded();
		return true;
	}

	private void succeeded() {
		if (this.failedExtensions > 0) {
			logger.warn("Extended the visibility of tasks of queue '" + this.queueName + "' again after "
					+ this.failedExtensions + " failed attempt(s)");
			this.failedExtensions = 0;
			this.failingSince = 0;
		}
	}

	private void failed(int tasks, Throwable ex) {
		if (this.failedExtensions++ == 0) {
			this.failingSince = System.nanoTime();
			logger.warn("Could not extend the visibility of " + tasks + " tasks of queue '" + this.queueName
					+ "'; trying again every " + TimeUnit.NANOSECONDS.toMillis(periodNanos() / RETRIES_PER_PERIOD)
					+ " ms until it succeeds", ex);
		}
		else {
			logger.debug("Could not extend the visibility of tasks of queue '" + this.queueName + "'", ex);
		}
	}

}
