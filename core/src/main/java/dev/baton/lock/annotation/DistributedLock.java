package dev.baton.lock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while holding a distributed lock, across every instance that
 * shares the Redis server. The lock is taken before a {@code @Transactional} transaction on the
 * same method begins and released after it ends. Methods returning {@code CompletionStage} or a
 * Reactor {@code Mono}/{@code Flux} hold the lock until the result completes.
 *
 * <p>The attributes are checked when the application starts: an invalid key expression,
 * duration or fallback method fails start-up with a message that names the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * The lock name, also the {@code lock} tag of the lock's metrics. The default (empty) is
	 * {@code SimpleClassName.methodName}.
	 */
	String name() default "";

	/**
	 * A SpEL expression over the method arguments ({@code #orderId}, {@code #p0},
	 * {@code #order.id}, beans as {@code @bean}) whose value is appended to the name, so that
	 * each key has its own lock. If it evaluates to a collection or an array, every element is
	 * locked, all or none, in an order free of deadlocks. The default (empty) is one lock for
	 * the method.
	 */
	String key() default "";

	/**
	 * How long to wait for the lock, e.g. {@code "500ms"}, {@code "3s"} or {@code "PT3S"};
	 * accepts {@code ${...}} placeholders. {@code "0"} tries once. The default (empty) is
	 * {@code baton.lock.wait-time}.
	 */
	String waitTime() default "";

	/**
	 * How long the lock is held at most, as a duration; accepts {@code ${...}} placeholders.
	 * The default (empty) holds it until the method returns, renewed by the watchdog.
	 */
	String leaseTime() default "";

	/**
	 * The minimum time the lock stays taken after it was acquired, even if the method returns
	 * sooner, so that a scheduled job on several instances runs once per schedule; accepts
	 * {@code ${...}} placeholders. The default (empty) releases the lock on return.
	 */
	String lockAtLeastFor() default "";

	/** What to do when the lock is not acquired. The default is {@link OnLockFailure#THROW}. */
	OnLockFailure onFailure() default OnLockFailure.THROW;

	/**
	 * A method of the same bean with the same parameters to call instead when the lock is not
	 * acquired; takes precedence over {@link #onFailure()}. The default (empty) is none.
	 */
	String fallbackMethod() default "";

}
