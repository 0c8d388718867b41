package dev.baton.queue.listener;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.baton.queue.Delivery;
import org.apache.commons.logging.Log;

/**
 * Runs the deliveries waiting in line on up to {@code concurrency} workers of the handler
 * executor; each worker runs deliveries from the line until the line is empty.
 */
final class Workers {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final String queueName;

	private final int concurrency;

	private final Executor handlers;

	private final HeldDeliveries held;

	private final HandlerInvocation invocation;

	private final HandBack handBack;

	private final BooleanSupplier active;

	/** Workers started on the handler executor, at most the concurrency. */
	private final AtomicInteger workers = new AtomicInteger();

	Workers(String queueName, int concurrency, Executor handlers, HeldDeliveries held, HandlerInvocation invocation,
			HandBack handBack, BooleanSupplier active) {
		this.queueName = queueName;
		this.concurrency = concurrency;
		this.handlers = handlers;
		this.held = held;
		this.invocation = invocation;
		this.handBack = handBack;
		this.active = active;
	}

	/** Starts workers while deliveries wait and fewer than {@code concurrency} workers run. */
	void start() {
		int started;
		while (this.held.hasReady() && (started = this.workers.get()) < this.concurrency) {
			if (this.workers.compareAndSet(started, started + 1)) {
				try {
					this.handlers.execute(this::work);
				}
				catch (RuntimeException ex) {
					// The executor refused the worker: give the waiting tasks back to the queue at once
					this.workers.decrementAndGet();
					this.handBack.handBack(this.held.takeReady());
					return;
				}
			}
		}
	}

	private void work() {
		try {
			Delivery<Object> delivery;
			while (this.active.getAsBoolean() && (delivery = this.held.nextReady()) != null) {
				if (this.held.isStale(delivery)) {
					// Its visibility could not be extended in time: another consumer may run it already
					logger.warn("Dropping task '" + delivery.id() + "' of queue '" + this.queueName
							+ "': its visibility timeout passed or it was lost while it waited for a handler");
					this.held.finish(delivery);
				}
				else {
					this.invocation.handle(delivery);
				}
			}
		}
		finally {
			this.workers.decrementAndGet();
		}
		// A delivery added after the last poll, while this worker still counted, would wait
		if (this.active.getAsBoolean()) {
			start();
		}
	}

}
