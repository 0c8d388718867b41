package dev.baton.queue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.PartialSettlementException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Acknowledges the deliveries of successful handlers in batches, on threads of its own: while
 * one batch is on its way to Redis the next one gathers, so a busy queue pays one round trip for
 * many acknowledgements and an idle one still acknowledges at once.
 *
 * <p>A failure never holds up the partitions that answer: acknowledgements whose partition failed
 * move to a second lane, which sends them again, with a growing pause, until they succeed
 * (dropping them would redeliver tasks whose handlers succeeded), and takes the later ones of that
 * partition until it answers again; the first lane goes on with the others, and the container is
 * told of each delivery that waits so, whose permit it may lend to claims of the other partitions.
 * Meanwhile the container keeps extending their visibility; a delivery that became stale (the
 * container could not extend it in time) is dropped from the retries, as is everything still
 * unsent when the close deadline passes. Each delivery's callback runs once it was acknowledged or dropped; the
 * deliveries whose acknowledgement Redis refused as stale are reported as well.
 */
final class Acknowledger {

	private static final Log logger = LogFactory.getLog(Acknowledger.class);

	private static final int MAX_BATCH = 1000;

	private static final long POLL_MILLIS = 100;

	private static final long MAX_RETRY_PAUSE_MILLIS = 1000;

	private final BatonThreads threads;

	private final ConsumableQueue<Object> queue;

	private final String queueName;

	private final Predicate<Delivery<Object>> stale;

	private final Consumer<List<Delivery<Object>>> refused;

	private final Consumer<Delivery<Object>> dropped;

	private final Consumer<Delivery<Object>> waiting;

	/** Acknowledgements of partitions that answer: sent once, a failure goes to {@link #retrying}. */
	private final Lane first = new Lane(false);

	/** Acknowledgements of failing partitions, sent again until they succeed. */
	private final Lane retrying = new Lane(true);

	/** The partitions whose acknowledgements go to {@link #retrying}, until one of them succeeds. */
	private final Set<Object> failingPartitions = ConcurrentHashMap.newKeySet();

	/** When acknowledgements started failing, as {@link System#nanoTime()}, or 0 while none is retried. */
	private volatile long failingSince;

	private volatile boolean open = true;

	/** When closing gives up on unsent acknowledgements, as {@link System#nanoTime()}. */
	private volatile long closeDeadline;

	/**
	 * @param queue the queue, which tells the partition of each delivery
	 * @param stale whether a delivery can no longer be acknowledged (its visibility was not
	 * extended in time), so that retrying for it is pointless
	 * @param refused told of the deliveries whose acknowledgement Redis refused as stale
	 * @param dropped told of each delivery whose acknowledgement is dropped because it is stale
	 * @param waiting told of each delivery whose acknowledgement goes to the retrying lane: it
	 * waits for a partition that fails
	 */
	Acknowledger(BatonThreads threads, ConsumableQueue<Object> queue, String queueName,
			Predicate<Delivery<Object>> stale, Consumer<List<Delivery<Object>>> refused,
			Consumer<Delivery<Object>> dropped, Consumer<Delivery<Object>> waiting) {
		this.threads = threads;
		this.queue = queue;
		this.queueName = queueName;
		this.stale = stale;
		this.refused = refused;
		this.dropped = dropped;
		this.waiting = waiting;
	}

	void start() {
		this.first.start("baton-ack-" + this.queueName);
		this.retrying.start("baton-ack-retry-" + this.queueName);
	}

	void acknowledge(Delivery<Object> delivery, Runnable done) {
		Pending pending = new Pending(delivery, done);
		if (this.failingPartitions.contains(partitionOf(pending))) {
			retry(List.of(pending));
		}
		else {
			this.first.pending.add(pending);
		}
	}

	private void retry(List<Pending> failed) {
		this.retrying.pending.addAll(failed);
		failed.forEach((pending) -> this.waiting.accept(pending.delivery()));
	}

	private Object partitionOf(Pending pending) {
		return this.queue.partitionOf(pending.delivery());
	}

	/** Since when acknowledgements keep failing, as {@link System#nanoTime()}, or 0 if none does. */
	long failingSince() {
		return this.failingSince;
	}

	/**
	 * Acknowledge what is still pending, retrying failures until {@code deadline}, and stop.
	 * @param deadline as {@link System#nanoTime()}
	 */
	void close(long deadline) {
		this.closeDeadline = deadline;
		this.open = false;
		this.first.join(deadline);
		this.retrying.join(deadline);
	}

	private void dropStale(List<Pending> batch) {
		batch.removeIf((entry) -> {
			if (!this.stale.test(entry.delivery())) {
				return false;
			}
			logger.warn("Dropping the acknowledgement of task '" + entry.delivery().id() + "' of queue '"
					+ this.queueName + "': its visibility could not be extended, it may be delivered again");
			this.dropped.accept(entry.delivery());
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

	/** A thread that sends the acknowledgements of its own line in batches. */
	private final class Lane {

		private final boolean retries;

		final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();

		private @Nullable Thread thread;

		Lane(boolean retries) {
			this.retries = retries;
		}

		void start(String name) {
			this.thread = Acknowledger.this.threads.start(name, this::run);
		}

		boolean alive() {
			Thread thread = this.thread;
			return thread != null && thread.isAlive();
		}

		void join(long deadline) {
			BatonThreads.joinUntil(this.thread, deadline);
		}

		private void run() {
			List<Pending> batch = new ArrayList<>();
			int failures = 0;
			// The retrying lane outlives the first, which may still hand it acknowledgements.
			while (Acknowledger.this.open || !this.pending.isEmpty() || !batch.isEmpty()
					|| (this.retries && Acknowledger.this.first.alive())) {
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
					failures = send(batch, failures + 1) ? 0 : failures + 1;
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				catch (Throwable ex) {
					// Any Throwable: a dead thread would leave every later task in flight
					failures++;
					failed(batch, batch, ex, failures);
				}
				if (failures > 0 && !batch.isEmpty()
						&& !pause(Math.min(POLL_MILLIS << Math.min(failures - 1, 10), MAX_RETRY_PAUSE_MILLIS))) {
					return;
				}
			}
		}

		/**
		 * Acknowledges the batch, completing what Redis settled; what a failing partition left
		 * stays in the batch here, or moves to the retrying lane.
		 * @param failure which failure in a row a failure would be
		 * @return whether every acknowledgement was settled
		 */
		private boolean send(List<Pending> batch, int failure) {
			List<Delivery<Object>> stale;
			try {
				stale = Acknowledger.this.queue.acknowledge(batch.stream().map(Pending::delivery).toList());
			}
			catch (PartialSettlementException ex) {
				Set<Delivery<Object>> unsettled = Set.copyOf(ex.<Object>unsettled());
				List<Pending> left = new ArrayList<>(
						batch.stream().filter((pending) -> unsettled.contains(pending.delivery())).toList());
				batch.removeAll(left);
				settled(batch, ex.stale());
				batch.addAll(left);
				failed(batch, left, ex, failure);
				return false;
			}
			settled(batch, stale);
			Acknowledger.this.failingSince = this.retries ? 0 : Acknowledger.this.failingSince;
			return true;
		}

		private void settled(List<Pending> batch, List<Delivery<Object>> stale) {
			if (this.retries) {
				batch.forEach((sent) -> Acknowledger.this.failingPartitions.remove(partitionOf(sent)));
			}
			complete(batch);
			if (!stale.isEmpty()) {
				Acknowledger.this.refused.accept(stale);
			}
		}

		/** The acknowledgements of {@code left} failed: the retrying lane takes them, or keeps them in the batch. */
		private void failed(List<Pending> batch, List<Pending> left, Throwable ex, int failures) {
			if (Acknowledger.this.failingSince == 0) {
				Acknowledger.this.failingSince = System.nanoTime();
			}
			if (!Acknowledger.this.open && System.nanoTime() - Acknowledger.this.closeDeadline >= 0) {
				logger.warn("Could not acknowledge " + batch.size() + " tasks of queue '" + Acknowledger.this.queueName
						+ "' before the shutdown deadline; they come back after the visibility timeout", ex);
				complete(batch);
				return;
			}
			if (!this.retries) {
				left.forEach((unsent) -> Acknowledger.this.failingPartitions.add(partitionOf(unsent)));
				retry(left);
				batch.removeAll(left);
				logger.debug("Could not acknowledge " + left.size() + " tasks of queue '" + Acknowledger.this.queueName
						+ "'; trying again on their own", ex);
				return;
			}
			logger.warn("Could not acknowledge " + left.size() + " tasks of queue '" + Acknowledger.this.queueName
					+ "' (failure " + failures + "); trying again", ex);
		}

	}

	private record Pending(Delivery<Object> delivery, Runnable done) {
	}

}
