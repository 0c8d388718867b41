package dev.baton.support;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.spi.ConsumableQueue;

/**
 * A Baton queue seen through its application API and its SPI at once, for tests that schedule,
 * claim and advance on one variable ({@code var queue = ConsumedQueues.of(queues.get(...))}).
 */
public final class ConsumedQueues {

	private ConsumedQueues() {
	}

	/**
	 * The queue as every interface Baton's queues implement.
	 * @param queue a queue from Baton's {@code DelayQueues}
	 * @return the same queue
	 */
	@SuppressWarnings("unchecked")
	public static <T, Q extends DelayQueue<T> & ConsumableQueue<T> & AdvanceableQueue> Q of(DelayQueue<T> queue) {
		return (Q) queue;
	}

}
