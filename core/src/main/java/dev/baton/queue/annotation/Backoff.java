package dev.baton.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The delay between a failed attempt and the next: {@code initial}, multiplied by
 * {@code multiplier} after each attempt, capped at {@code max}. Empty attributes take their
 * value from {@code baton.queue.backoff.*}.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Backoff {

	/**
	 * The delay before the second attempt, e.g. {@code "1s"}; accepts {@code ${...}}
	 * placeholders. The default (empty) is {@code baton.queue.backoff.initial}.
	 */
	String initial() default "";

	/**
	 * The factor applied to the delay after each attempt, e.g. {@code "2"}; accepts
	 * {@code ${...}} placeholders. The default (empty) is {@code baton.queue.backoff.multiplier}.
	 */
	String multiplier() default "";

	/**
	 * The longest delay between attempts, e.g. {@code "5m"}; accepts {@code ${...}}
	 * placeholders. The default (empty) is {@code baton.queue.backoff.max}.
	 */
	String max() default "";

}
