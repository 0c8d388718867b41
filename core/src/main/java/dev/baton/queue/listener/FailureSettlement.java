package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.internal.Durations;
import dev.baton.observation.TaskHandlingContext.Outcome;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.Delivery;
import dev.baton.internal.SafeDeadLetterReason;

/**
 * Settles the task of a failed handler as the {@link DelayedTaskErrorHandler} decides: retried
 * later with the attempt counted, or dead-lettered, or deleted when the handler keeps no dead
 * letters. Each failure is logged at WARN, its kind's stack trace once a minute.
 */
final class FailureSettlement {

	private final String queueName;

	private final ListenerSettings settings;

	private final boolean deadLetter;

	private final DeadLetterReason deadLetterReason;

	private final DelayedTaskErrorHandler errorHandler;

	private final FailureLog failures = new FailureLog(DelayedTaskListenerContainer.logger, Duration.ofMinutes(1));

	FailureSettlement(String queueName, ListenerSettings settings, boolean deadLetter,
			DeadLetterReason deadLetterReason, DelayedTaskErrorHandler errorHandler) {
		this.queueName = queueName;
		this.settings = settings;
		this.deadLetter = deadLetter;
		this.deadLetterReason = deadLetterReason;
		this.errorHandler = errorHandler;
	}

	/** Settles the delivery whose handler threw {@code ex}; returns the outcome to observe. */
	Outcome settle(Delivery<Object> delivery, Throwable ex) {
		TaskFailureDecision decision = this.errorHandler.handle(new TaskFailure(this.queueName, delivery.id(),
				delivery.attempt(), ex, this.settings.backoff().toBackOff(this.settings.maxAttempts())));
		String task = "Task '" + delivery.id() + "' of queue '" + this.queueName + "'";
		if (decision instanceof TaskFailureDecision.Retry retry) {
			this.failures.warn(task + " failed on attempt " + delivery.attempt() + " of " + this.settings.maxAttempts()
					+ "; retrying in " + Durations.readable(retry.delay()), ex);
			delivery.retry(retry.delay());
			return Outcome.RETRY;
		}
		String outcome = this.deadLetter ? "; dead-lettered" : "; deleted";
		this.failures.warn(task + ((delivery.attempt() >= this.settings.maxAttempts())
				? " failed on its last attempt (" + delivery.attempt() + ")"
				: " failed on attempt " + delivery.attempt() + " and is not retried") + outcome, ex);
		if (this.deadLetter) {
			delivery.deadLetter(SafeDeadLetterReason.of(this.deadLetterReason, ex));
		}
		else {
			delivery.ack();
		}
		return Outcome.DEAD;
	}

}
