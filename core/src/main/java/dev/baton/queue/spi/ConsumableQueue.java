package dev.baton.queue.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;

/**
 * A queue as the listener container consumes it: batched claims that say when to look again,
 * batched visibility extension, hand-back on shutdown and a wake-up signal. An implementation
 * is also the {@link DelayQueue} that applications schedule on; the container finds this
 * interface on the queue that {@link dev.baton.queue.DelayQueues#get} returns.
 *
 * @param <T> the payload type
 */
public interface ConsumableQueue<T> {

	/**
	 * The queue's name.
	 * @return the name
	 */
	String name();

	/**
	 * Claim up to {@code max} due tasks in one round trip, requeueing expired in-flight tasks
	 * first. Tasks whose payload cannot be read are dead-lettered, not returned.
	 * @param max the maximum number of tasks to claim, positive
	 * @param visibilityTimeout how long the claimed tasks stay invisible to other consumers, at most
	 * {@link DelayQueue#MAX_VISIBILITY_TIMEOUT}
	 * @return the deliveries and when to claim again
	 */
	Claim<T> claim(int max, Duration visibilityTimeout);

	/**
	 * Extend the visibility of many deliveries in one round trip, never shortening it (see
	 * {@link Delivery#extendVisibility}); stale ones are skipped and returned.
	 * @param deliveries deliveries of this queue
	 * @param visibilityTimeout the new timeout, from now, at most {@link DelayQueue#MAX_VISIBILITY_TIMEOUT}
	 * @return the deliveries that are stale: their task is no longer theirs (redelivered,
	 * settled or cancelled), so nothing of it should be started for them
	 * @throws PartialSettlementException if some partitions failed and others extended theirs
	 */
	List<Delivery<T>> extendVisibility(Collection<? extends Delivery<T>> deliveries, Duration visibilityTimeout);

	/**
	 * Acknowledge many deliveries in one round trip: their tasks are done and deleted; stale
	 * ones are skipped and returned.
	 * @param deliveries deliveries of this queue
	 * @return the deliveries that are stale, whose acknowledgement Redis did not take
	 * @throws PartialSettlementException if some partitions failed and others acknowledged theirs
	 */
	List<Delivery<T>> acknowledge(Collection<? extends Delivery<T>> deliveries);

	/**
	 * The partition of the queue that holds a delivery's task, to tell deliveries whose settling
	 * fails together apart from the others (see {@link PartialSettlementException}); any object
	 * with equality. An unpartitioned queue has one.
	 * @param delivery a delivery of this queue
	 * @return the partition
	 */
	default Object partitionOf(Delivery<T> delivery) {
		return this;
	}

	/**
	 * How many partitions the queue has, each with a wake channel of its own.
	 * @return the partition count
	 */
	default int partitionCount() {
		return 1;
	}

	/**
	 * Make unfinished deliveries due again at once without counting the attempt, so that
	 * another instance picks them up (on shutdown).
	 * @param deliveries deliveries of this queue
	 */
	void handBack(Collection<? extends Delivery<T>> deliveries);

	/**
	 * Call the listener whenever a task is scheduled to fall due earlier than every waiting task,
	 * from any instance, and whenever the subscription is confirmed: at first, and again after a
	 * reconnect, since a wake-up published while the connection was down is lost.
	 * @param listener called on a notification thread; must return quickly
	 * @return a handle that stops the notifications when closed
	 */
	default AutoCloseable onWake(Runnable listener) {
		return onSignal((signal) -> {
			if (!(signal instanceof WakeSignal.Taken)) {
				listener.run();
			}
		});
	}

	/**
	 * Call the listener on every signal of the queue's wake channels: the wake-ups of
	 * {@link #onWake(Runnable)}, with the due time, and every claim that took tasks, so that idle
	 * consumers woken for the same tasks can leave them to the first claim.
	 * @param listener called on a notification thread; must return quickly
	 * @return a handle that stops the notifications when closed
	 */
	AutoCloseable onSignal(Consumer<WakeSignal> listener);

	/**
	 * The result of a claim.
	 *
	 * @param deliveries the claimed deliveries, in due order
	 * @param nextDueIn how long until the next waiting task falls due (Redis time), zero if
	 * more are due now, or {@code null} if the queue holds no waiting task; shorter when an
	 * in-flight delivery's visibility expires first (its task may have to be redelivered then)
	 * @param serverTime the Redis server's clock when it made the claim
	 * @param <T> the payload type
	 */
	record Claim<T>(List<Delivery<T>> deliveries, @Nullable Duration nextDueIn, Instant serverTime) {

	}

}
