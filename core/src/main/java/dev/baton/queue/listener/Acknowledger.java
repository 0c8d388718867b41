package dev.baton.queue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.baton.queue.Delivery;
import dev.baton.queue.internal.ConsumableQueue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Acknowledges the deliveries of successful handlers in batches, on a thread of its own: while
 * one batch is on its way to Redis the next one gathers, so a busy queue pays one round trip for
 * many acknowledgements and an idle one still acknowledges at once. A batch that fails is sent
 * again, with a growing pause, until it succeeds: dropping it would redeliver every task of it
 * although their handlers succeeded. Meanwhile the container keeps extending their visibility;
 * a delivery that became stale (the container could not extend it in time) is dropped from the
 * batch, as is everything still unsent when the close deadline passes. Each delivery's callback
 * runs once it was acknowledged or dropped; the deliveries whose acknowledgement Redis refused as
 * stale are reported as well.
 */
final class Acknowledger {

	private static final Log logger = LogFactory.getLog(Acknowledger.class);

	private static final int MAX_BATCH = 1000;

	private static final long POLL_MILLIS = 100;

	private static final long MAX_RETRY_PAUSE_MILLIS = 1000;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	private final Predicate<Delivery<Object>> stale;

	private final Consumer<List<Delivery<Object>>> refused;

	private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();

	private volatile boolean open = true;

	/** When closing gives up on unsent acknowledgements, as {@link System#nanoTime()}. */
	private volatile long closeDeadline;

	private @Nullable Thread thread;

	/**
	 * @param stale whether a delivery can no longer be acknowledged (its visibility was not
	 * extended in time), so that retrying for it is pointless
	 * @param refused told of the deliveries whose acknowledgement Redis refused as stale
	 */
	Acknowledger(ConsumableQueue<Object> queue, String queueName, Predicate<Delivery<Object>> stale,
			Consumer<List<Delivery<Object>>> refused) {
		this.queue = queue;
		this.queueName = queueName;
		this.stale = stale;
		this.refused = refused;
	}

	void start() {
		this.thread = DaemonThreads.start("baton-ack-" + this.queueName, this::run);
	}

	void acknowledge(Delivery<Object> delivery, Runnable done) {
		this.pending.add(new Pending(delivery, done));
	}

	/**
	 * Acknowledge what is still pending, retrying failures until {@code deadline}, and stop.
	 * @param deadline as {@link System#nanoTime()}
	 */
	void close(long deadline) {
		this.closeDeadline = deadline;
		this.open = false;
		Thread thread = this.thread;
		if (thread == null) {
			return;
		}
		try {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		List<Pending> batch = new ArrayList<>();
		int failures = 0;
		while (this.open || !this.pending.isEmpty() || !batch.isEmpty()) {
			try {
				if (batch.isEmpty()) {
					Pending first = this.pending.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
					if (first == null) {
						continue;
					}
					batch.add(first);
				}
				this.pending.drainTo(batch, MAX_BATCH - batch.size());
				if (failures > 0) {
					// Only when retrying: Redis itself skips a stale delivery, at no cost
					dropStale(batch);
				}
				List<Delivery<Object>> refused = this.queue.acknowledge(batch.stream().map(Pending::delivery).toList());
				complete(batch);
				if (!refused.isEmpty()) {
					this.refused.accept(refused);
				}
				failures = 0;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (Throwable ex) {
				// Any Throwable: a dead thread would leave every later task in flight
				failures++;
				if (!this.open && System.nanoTime() - this.closeDeadline >= 0) {
					logger.warn("Could not acknowledge " + batch.size() + " tasks of queue '" + this.queueName
							+ "' before the shutdown deadline; they come back after the visibility timeout", ex);
					complete(batch);
					continue;
				}
				long pause = Math.min(POLL_MILLIS << Math.min(failures - 1, 10), MAX_RETRY_PAUSE_MILLIS);
				logger.warn("Could not acknowledge " + batch.size() + " tasks of queue '" + this.queueName
						+ "' (failure " + failures + "); trying again in " + pause + " ms", ex);
				if (!pause(pause)) {
					return;
				}
			}
		}
	}

	private void dropStale(List<Pending> batch) {
		batch.removeIf((entry) -> {
			if (!this.stale.test(entry.delivery())) {
				return false;
			}
			logger.warn("Dropping the acknowledgement of task '" + entry.delivery().id() + "' of queue '"
					+ this.queueName + "': its visibility could not be extended, it may be delivered again");
			entry.done().run();
			return true;
		});
	}

	private static void complete(List<Pending> batch) {
		batch.forEach((sent) -> sent.done().run());
		batch.clear();
	}

	private boolean pause(long millis) {
		try {
			Thread.sleep(millis);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private record Pending(Delivery<Object> delivery, Runnable done) {
	}

}
