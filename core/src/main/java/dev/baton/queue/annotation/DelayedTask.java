package dev.baton.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of a delay queue's tasks. The method takes the payload as
 * its one parameter, and optionally a {@link dev.baton.queue.TaskContext}. Returning normally
 * acknowledges the task; throwing retries it after the {@link #backoff()} until
 * {@link #maxAttempts()}, then moves it to the dead letters with the exception's message.
 * A method that returns a {@link java.util.concurrent.CompletionStage} (or a Reactor
 * {@code Mono}, when Reactor is present) is settled when that completes, by its outcome, and the
 * task stays invisible to other consumers meanwhile; any other return value is ignored.
 *
 * <p>Delivery is at least once: make the handler idempotent, e.g. with the task id.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedTask {

	/** The queue to consume. Each queue has at most one handler per application. */
	String queue();

	/**
	 * How many tasks this handler runs at once: a number ({@code "4"}), or a range
	 * ({@code "2-8"}), which is accepted and runs with its upper bound (it does not scale with
	 * the backlog yet). Accepts {@code ${...}} placeholders; a concurrency configured under
	 * {@code baton.queue.queues.<name>.concurrency} replaces it. The default is {@code "1"}.
	 */
	String concurrency() default "1";

	/**
	 * How many times a task is delivered before it is dead-lettered, e.g. {@code "5"}. Accepts
	 * {@code ${...}} placeholders. The default (empty) is {@code baton.queue.max-attempts}.
	 */
	String maxAttempts() default "";

	/** The delay between attempts. The default is {@code baton.queue.backoff.*}. */
	Backoff backoff() default @Backoff;

	/**
	 * How long a claimed task stays invisible to other consumers; the container extends it while
	 * the handler runs, so it only matters when this instance dies. A duration such as
	 * {@code "30s"}, accepting {@code ${...}} placeholders. The default (empty) is
	 * {@code baton.queue.visibility-timeout}.
	 */
	String visibilityTimeout() default "";

	/**
	 * Whether a task that used up its attempts is kept as a dead letter; if {@code false} it is
	 * deleted. The default is {@code true}.
	 */
	boolean deadLetter() default true;

}
