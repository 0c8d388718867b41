package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import dev.baton.internal.ObservationSettings;
import dev.baton.lock.LockLease;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultTaskHandlingObservationConvention;
import dev.baton.observation.TaskHandlingContext;
import dev.baton.observation.TaskHandlingContext.Outcome;
import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.Delivery;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.HandlerMetrics.StaleOperation;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;

/**
 * Runs the handler for one delivery, observed and with the task in the MDC, and settles its
 * outcome: a success is acknowledged (the permit comes back once the acknowledgement was sent),
 * a failure goes to the {@link FailureSettlement}. Once stopping began, a failure settles
 * nothing: the task is handed back, or left to come back after its visibility timeout.
 */
final class HandlerInvocation {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final String queueName;

	private final HandlerMethodAdapter adapter;

	private final HandlerMetrics metrics;

	private final ObservationSettings<TaskHandlingObservationConvention> observations;

	private final HeldDeliveries held;

	private final Acknowledger acknowledger;

	private final FailureSettlement failures;

	private final HandBack handBack;

	private final ClaimAheadEstimate estimate;

	private final ServerClock serverClock;

	private final BooleanSupplier active;

	HandlerInvocation(DelayedTaskEndpoint endpoint, HandlerMetrics metrics,
			ObservationSettings<TaskHandlingObservationConvention> observations, HeldDeliveries held,
			Acknowledger acknowledger, FailureSettlement failures, HandBack handBack, ClaimAheadEstimate estimate,
			ServerClock serverClock, BooleanSupplier active) {
		this.queueName = endpoint.queue();
		this.adapter = new HandlerMethodAdapter(endpoint.bean(), endpoint.method());
		this.metrics = metrics;
		this.observations = observations;
		this.held = held;
		this.acknowledger = acknowledger;
		this.failures = failures;
		this.handBack = handBack;
		this.estimate = estimate;
		this.serverClock = serverClock;
		this.active = active;
	}

	void handle(Delivery<Object> delivery) {
		HeldDelivery holding = this.held.get(delivery);
		if (holding == null) {
			return;
		}
		holding.handler = Thread.currentThread();
		this.metrics.lateness(this.queueName, Duration.between(delivery.dueAt(), this.serverClock.now()));
		Observation observation = BatonObservation.TASK_HANDLING
			.observation(this.observations.convention(), DefaultTaskHandlingObservationConvention.INSTANCE,
					() -> new TaskHandlingContext(this.queueName, delivery), this.observations.registry())
			.start();
		Outcome outcome = Outcome.UNSETTLED;
		boolean acknowledging = false;
		try {
			try {
				HandlerMdc mdc = HandlerMdc.open(this.queueName, delivery.id(), delivery.attempt());
				Observation.Scope scope = observation.openScope();
				long start = System.nanoTime();
				holding.startedAt = start;
				this.held.started(holding);
				try {
					this.adapter.invoke(delivery.payload(), new Context(delivery, holding));
				}
				finally {
					this.held.ended(holding);
					this.estimate.record(System.nanoTime() - start);
					scope.close();
					mdc.close();
				}
				holding.handler = null;
				// The permit comes back once the acknowledgement was sent: until then the task is in flight
				this.acknowledger.acknowledge(delivery, () -> this.held.finish(delivery));
				acknowledging = true;
				outcome = Outcome.SUCCESS;
			}
			catch (Exception | Error ex) {
				holding.handler = null;
				observation.error(ex);
				if (holding.abandoned) {
					logger.info("Task '" + delivery.id() + "' of queue '" + this.queueName
							+ "' was interrupted by stopping; it is not settled and will be delivered again");
					return;
				}
				if (!this.active.getAsBoolean()) {
					// Stopping may have closed what the handler uses: its failure says nothing of the task
					logger.info("Task '" + delivery.id() + "' of queue '" + this.queueName + "' failed while stopping ("
							+ ex + "); it is handed back without counting the attempt");
					this.handBack.handBack(List.of(delivery));
					return;
				}
				outcome = this.failures.settle(delivery, ex);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not settle task '" + delivery.id() + "' of queue '" + this.queueName
					+ "'; it comes back after the visibility timeout", ex);
		}
		finally {
			if (observation.getContext() instanceof TaskHandlingContext context) {
				context.setOutcome(outcome);
			}
			observation.stop();
			if (!acknowledging) {
				this.held.finish(delivery);
			}
			Thread.interrupted(); // a pooled thread must not keep an interrupt meant for this task
		}
	}

	private final class Context implements TaskContext {

		private final Delivery<Object> delivery;

		private final HeldDelivery holding;

		Context(Delivery<Object> delivery, HeldDelivery holding) {
			this.delivery = delivery;
			this.holding = holding;
		}

		@Override
		public String queue() {
			return HandlerInvocation.this.queueName;
		}

		@Override
		public String id() {
			return this.delivery.id();
		}

		@Override
		public int attempt() {
			return this.delivery.attempt();
		}

		@Override
		public Instant dueAt() {
			return this.delivery.dueAt();
		}

		@Override
		public Instant scheduledAt() {
			return this.delivery.scheduledAt();
		}

		@Override
		public Optional<LockLease> lease() {
			return this.delivery.lease();
		}

		@Override
		public boolean extendVisibility(Duration timeout) {
			long sent = System.nanoTime();
			if (!this.delivery.extendVisibility(timeout)) {
				HandlerInvocation.this.held.lost(List.of(this.delivery), StaleOperation.EXTEND);
				return false;
			}
			this.holding.visibleAtLeastUntil(sent + timeout.toNanos());
			return true;
		}

		@Override
		public boolean isLost() {
			return this.holding.lost;
		}

	}

}
