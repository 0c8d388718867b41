package dev.baton.observation;

import dev.baton.queue.Delivery;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * What an observation of a task's handling knows. Its carrier is the delivery, whose
 * {@link Delivery#traceContext() trace context} was stored when the task was scheduled: with
 * tracing, the handling runs in a child span of the scheduling's span, whenever and wherever it
 * runs.
 */
public class TaskHandlingContext extends ReceiverContext<Delivery<?>> {

	private final String queue;

	private Outcome outcome = Outcome.UNSETTLED;

	/**
	 * Create a context.
	 * @param queue the queue name
	 * @param delivery the task's delivery
	 */
	public TaskHandlingContext(String queue, Delivery<?> delivery) {
		super((carrier, key) -> carrier.traceContext().get(key));
		this.queue = queue;
		setCarrier(delivery);
		setRemoteServiceName("redis");
	}

	/** The queue name. */
	public String getQueue() {
		return this.queue;
	}

	/** The delivery of the task being handled. */
	public Delivery<?> getDelivery() {
		Delivery<?> delivery = getCarrier();
		if (delivery == null) {
			throw new IllegalStateException("No delivery");
		}
		return delivery;
	}

	/** How handling ended; {@link Outcome#UNSETTLED} until the task is settled. */
	public Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Record how handling ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = outcome;
	}

	/** How handling a task ended. */
	public enum Outcome {

		/** The handler returned and the task was acknowledged. */
		SUCCESS,

		/** The handler failed and the task will be delivered again after a backoff. */
		RETRY,

		/** The handler failed on its last attempt: the task was dead-lettered or deleted. */
		DEAD,

		/**
		 * The task was not settled: the container stopped while it ran, or Redis did not take the
		 * settlement. It is delivered again after its visibility timeout.
		 */
		UNSETTLED

	}

}
