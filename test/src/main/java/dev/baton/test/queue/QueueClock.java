package dev.baton.test.queue;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.spi.AdvanceableQueue;

/**
 * Runs delayed tasks now in tests, instead of waiting real minutes for them: {@link #advance}
 * moves a queue's waiting tasks forward in time, as if the queue's clock had jumped.
 *
 * <pre class="code">
 * orders.place(order);                                     // schedules a cancellation in 30 minutes
 * QueueClock.advance(cancellations, Duration.ofMinutes(30)); // now it is due
 * await().until(() -&gt; orders.status(order.id()) == CANCELLED);
 * </pre>
 *
 * <p>Only the tasks waiting at the time of the call move: each one's due time becomes
 * {@code by} earlier, in the same order, and consumers are woken at once. Tasks scheduled
 * afterwards, tasks in flight and the Redis server's clock are not changed. Every waiting task
 * is read and rewritten, so use it on test data, not on a production queue.
 */
public final class QueueClock {

	private QueueClock() {
	}

	/**
	 * Move every waiting task of the queue {@code by} earlier.
	 * @param queue a queue of Baton's (an injected {@code DelayQueue} bean, or one from
	 * {@code DelayQueues}, {@link InMemoryDelayQueues} included)
	 * @param by how far to move the queue's clock, not negative
	 * @return how many waiting tasks are due now
	 * @throws IllegalArgumentException if the queue is not one of Baton's, or {@code by} is
	 * negative or longer than {@link DelayQueue#MAX_DELAY}
	 */
	public static long advance(DelayQueue<?> queue, Duration by) {
		if (by == null) {
			throw new IllegalArgumentException("Duration to advance by must not be null");
		}
		return advanceable(queue).advance(by);
	}

	/**
	 * Make every waiting task of the queue due now, in due order: like {@link #advance} by as
	 * far as the last waiting task needs.
	 * @param queue a queue of Baton's
	 * @return how many waiting tasks are due now
	 */
	public static long runAllNow(DelayQueue<?> queue) {
		return advanceable(queue).advance(null);
	}

	private static AdvanceableQueue advanceable(DelayQueue<?> queue) {
		if (queue instanceof AdvanceableQueue advanceable) {
			return advanceable;
		}
		throw new IllegalArgumentException("QueueClock moves Baton's queues only, not a "
				+ queue.getClass().getName() + " (queue '" + queue.name() + "')");
	}

}
