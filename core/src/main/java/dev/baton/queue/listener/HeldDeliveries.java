package dev.baton.queue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.queue.Delivery;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.HandlerMetrics.StaleOperation;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Every delivery a container claimed, until it is settled or handed back: the ones waiting in
 * line for a worker, the ones whose handler runs and the ones being acknowledged. Each holds a
 * {@link Permits permit}, freed when it leaves, or lent earlier while its acknowledgement waits
 * for a partition that fails.
 */
final class HeldDeliveries {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final String queueName;

	private final HandlerMetrics metrics;

	private final Permits permits;

	private final Map<Delivery<Object>, HeldDelivery> held = new ConcurrentHashMap<>();

	/** Claimed deliveries waiting for a worker, in due order. */
	private final Queue<Delivery<Object>> ready = new ConcurrentLinkedQueue<>();

	/** The deliveries whose handler runs, at most the concurrency. */
	private final Set<HeldDelivery> running = ConcurrentHashMap.newKeySet();

	/** Held deliveries whose permit went back ({@link HeldDelivery#permitLent}): at most the capacity. */
	private final AtomicInteger lent = new AtomicInteger();

	HeldDeliveries(String queueName, HandlerMetrics metrics, Permits permits) {
		this.queueName = queueName;
		this.metrics = metrics;
		this.permits = permits;
	}

	/** Holds claimed deliveries, invisible to others until {@code visibleUntil}, and puts them in line. */
	void hold(List<Delivery<Object>> deliveries, long visibleUntil) {
		long claimed = System.nanoTime();
		deliveries.forEach((delivery) -> this.held.put(delivery, new HeldDelivery(visibleUntil, claimed)));
		this.ready.addAll(deliveries);
	}

	@Nullable HeldDelivery get(Delivery<Object> delivery) {
		return this.held.get(delivery);
	}

	int size() {
		return this.held.size();
	}

	/** The held deliveries that take room from claims: all but those whose permit went back. */
	int takingRoom() {
		return this.held.size() - this.lent.get();
	}

	/**
	 * The delivery's acknowledgement waits for a partition that fails: its permit goes back, so
	 * that the other partitions' tasks are claimed meanwhile, while it stays held (its visibility
	 * extended, shutdown waiting for it). At most the capacity's worth at once, so that a partition
	 * that answers claims but fails acknowledgements cannot grow what is in flight without end.
	 */
	void lendPermit(Delivery<Object> delivery) {
		HeldDelivery holding = this.held.get(delivery);
		if (holding == null) {
			return;
		}
		synchronized (holding) {
			if (holding.permitLent || this.held.get(delivery) != holding) {
				return;
			}
			if (this.lent.incrementAndGet() > this.permits.capacity()) {
				this.lent.decrementAndGet();
				return;
			}
			holding.permitLent = true;
		}
		this.permits.freed();
	}

	/** The next delivery in line, taken out of it, or null. */
	@Nullable Delivery<Object> nextReady() {
		return this.ready.poll();
	}

	boolean hasReady() {
		return !this.ready.isEmpty();
	}

	/** Takes every delivery out of line and lets it go; the caller hands them back. */
	List<Delivery<Object>> takeReady() {
		List<Delivery<Object>> taken = new ArrayList<>();
		Delivery<Object> delivery;
		while ((delivery = this.ready.poll()) != null) {
			taken.add(delivery);
			finish(delivery);
		}
		return taken;
	}

	/**
	 * Takes out of line the deliveries behind the first {@code skip} that were claimed more than
	 * {@code nanos} ago; they stay held until the caller {@link #finish finishes} them.
	 */
	List<Delivery<Object>> takeWaitingLongerThan(long nanos, int skip) {
		long now = System.nanoTime();
		List<Delivery<Object>> taken = new ArrayList<>();
		int position = 0;
		for (Delivery<Object> delivery : this.ready) {
			HeldDelivery holding = this.held.get(delivery);
			// Removing from the line is atomic: a worker that took the delivery meanwhile runs it
			if (position++ >= skip && holding != null && now - holding.claimedAt > nanos
					&& this.ready.remove(delivery)) {
				taken.add(delivery);
			}
		}
		return taken;
	}

	/** Lets a delivery go and frees its permit; does nothing if it was let go already. */
	void finish(Delivery<Object> delivery) {
		HeldDelivery holding = this.held.remove(delivery);
		if (holding == null) {
			return;
		}
		synchronized (holding) {
			if (holding.permitLent) {
				this.lent.decrementAndGet();
				return;
			}
		}
		this.permits.freed();
	}

	boolean isStale(Delivery<Object> delivery) {
		HeldDelivery holding = this.held.get(delivery);
		return holding == null || holding.lost || System.nanoTime() - holding.visibleUntil > 0;
	}

	/** The deliveries whose visibility is to be extended: all but those stopping abandoned. */
	List<Delivery<Object>> notAbandoned() {
		return this.held.entrySet()
			.stream()
			.filter((entry) -> !entry.getValue().abandoned)
			.map(Map.Entry::getKey)
			.toList();
	}

	/** Marks the deliveries whose handler runs as abandoned, and returns them. */
	List<Map.Entry<Delivery<Object>, HeldDelivery>> abandonRunning() {
		List<Map.Entry<Delivery<Object>, HeldDelivery>> unfinished = this.held.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().handler != null)
			.toList();
		unfinished.forEach((entry) -> entry.getValue().abandoned = true);
		return unfinished;
	}

	void started(HeldDelivery holding) {
		this.running.add(holding);
	}

	void ended(HeldDelivery holding) {
		this.running.remove(holding);
	}

	/** How long the longest of the running handlers has run so far, in nanoseconds, 0 if none runs. */
	long longestRunningNanos() {
		long now = System.nanoTime();
		long longest = 0;
		for (HeldDelivery running : this.running) {
			longest = Math.max(longest, now - running.startedAt);
		}
		return longest;
	}

	/** Waits until nothing is held (no handler runs, no acknowledgement is pending) or the deadline passes. */
	void awaitSettled(long deadline) {
		try {
			while (!this.held.isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(10);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Redis answered that these deliveries are stale: their task is no longer theirs. Those still
	 * waiting are dropped, never started; running handlers see it in {@link TaskContext#isLost()}.
	 */
	void lost(List<Delivery<Object>> deliveries, StaleOperation operation) {
		int dropped = 0;
		for (Delivery<Object> delivery : deliveries) {
			HeldDelivery holding = this.held.get(delivery);
			if (holding != null) {
				holding.lost = true;
			}
			if (this.ready.remove(delivery)) {
				finish(delivery);
				dropped++;
			}
		}
		this.metrics.stale(this.queueName, operation, deliveries.size());
		String ids = deliveries.stream().limit(10).map((delivery) -> "'" + delivery.id() + "'").toList().toString();
		logger.warn("Redis answered " + (operation == StaleOperation.ACK ? "the acknowledgement" : "the extension")
				+ " of " + deliveries.size() + " task(s) of queue '" + this.queueName + "' " + ids
				+ ((deliveries.size() > 10) ? "..." : "") + " as stale: each ran out of visibility and was delivered "
				+ "to another consumer, or was settled or cancelled meanwhile"
				+ ((dropped > 0) ? "; " + dropped + " that had not started are dropped" : ""));
	}

}
