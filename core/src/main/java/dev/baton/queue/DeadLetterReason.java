package dev.baton.queue;

import org.springframework.core.NestedExceptionUtils;

/**
 * What a failure leaves as the reason of a dead letter: the exception of a {@code @DelayedTask}
 * handler's last attempt, or the one that made a payload unreadable when it was claimed.
 *
 * <p>The reason is stored in Redis with the dead letter, kept as long as the queue's
 * {@linkplain DeadLetterRetention dead-letter retention} allows, and returned by
 * {@link DelayQueue#deadLetters} and the actuator endpoint. Exception messages often quote the
 * values that failed (an IBAN in a validation message, the text Jackson could not read), so the
 * default, {@link #EXCEPTION_CLASS}, keeps exception classes only. Set another on
 * {@code RedisDelayQueues.Builder} and {@code DelayedTaskListenerRegistry.Builder}; with Spring
 * Boot, declare a bean of this type. A reason given to {@link Delivery#deadLetter(String)} is
 * stored as given.
 */
@FunctionalInterface
public interface DeadLetterReason {

	/**
	 * The exception's class name and, when its root cause is another exception, that one's too
	 * ({@code java.lang.IllegalStateException, caused by java.sql.SQLException}): no message, so
	 * no value. The default.
	 */
	DeadLetterReason EXCEPTION_CLASS = (failure) -> {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(failure);
		return failure.getClass().getName() + ((root != failure) ? ", caused by " + root.getClass().getName() : "");
	};

	/** The exception's class name and message, which may quote personal data. */
	DeadLetterReason MESSAGE = (failure) -> failure.getClass().getName() + ": " + failure.getMessage();

	/**
	 * The reason to store for a failure.
	 * @param failure what the handler threw on its last attempt, or what its asynchronous result
	 * failed with
	 * @return the reason, not null; a very long one is cut
	 */
	String of(Throwable failure);

}
