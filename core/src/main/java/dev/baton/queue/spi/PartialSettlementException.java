package dev.baton.queue.spi;

import java.util.List;

import dev.baton.queue.Delivery;
import dev.baton.queue.QueueException;

/**
 * Settling or extending deliveries of several partitions of a queue failed on some partitions and
 * succeeded on the others: every delivery not listed here was settled, or extended, so that a
 * caller retries only these and one failing partition does not hold up the others.
 */
public class PartialSettlementException extends QueueException {

	private final List<Delivery<?>> unsettled;

	private final List<Delivery<?>> stale;

	/**
	 * Create an exception.
	 * @param message the detail message
	 * @param cause the failure of the first partition that failed
	 * @param unsettled the deliveries of the partitions that failed: their outcome is unknown
	 * @param stale the deliveries that partitions which answered reported stale
	 */
	public PartialSettlementException(String message, Throwable cause, List<? extends Delivery<?>> unsettled,
			List<? extends Delivery<?>> stale) {
		super(message, cause);
		this.unsettled = List.copyOf(unsettled);
		this.stale = List.copyOf(stale);
	}

	/**
	 * The deliveries of the partitions that failed, whose outcome is unknown.
	 * @param <T> the payload type of the queue that threw this
	 * @return the deliveries
	 */
	@SuppressWarnings("unchecked")
	public <T> List<Delivery<T>> unsettled() {
		return (List<Delivery<T>>) (List<?>) this.unsettled;
	}

	/**
	 * The deliveries that the partitions which answered reported stale.
	 * @param <T> the payload type of the queue that threw this
	 * @return the deliveries
	 */
	@SuppressWarnings("unchecked")
	public <T> List<Delivery<T>> stale() {
		return (List<Delivery<T>>) (List<?>) this.stale;
	}

}
