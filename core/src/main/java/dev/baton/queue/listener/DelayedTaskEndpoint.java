package dev.baton.queue.listener;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One {@code @DelayedTask} handler, as discovered and validated: the queue, the method and what
 * its annotation sets. Attributes left empty are {@code null} and come from the queue's
 * {@link ListenerSettings}.
 *
 * @param queue the queue name
 * @param bean the bean to invoke the method on
 * @param method the handler method, invocable on the bean
 * @param payloadType the type payloads are read as
 * @param concurrency the most tasks handled at once
 * @param maxAttempts deliveries before dead-lettering, or {@code null} for the queue's setting
 * @param backoffInitial the first backoff delay, or {@code null} for the queue's setting
 * @param backoffMultiplier the backoff multiplier, or {@code null} for the queue's setting
 * @param backoffMax the longest backoff delay, or {@code null} for the queue's setting
 * @param visibilityTimeout the visibility timeout, or {@code null} for the queue's setting
 * @param deadLetter whether exhausted tasks are kept as dead letters rather than deleted
 */
public record DelayedTaskEndpoint(String queue, Object bean, Method method, Class<?> payloadType, int concurrency,
		@Nullable Integer maxAttempts, @Nullable Duration backoffInitial, @Nullable Double backoffMultiplier,
		@Nullable Duration backoffMax, @Nullable Duration visibilityTimeout, boolean deadLetter) {

	/**
	 * Checks that Baton can wait for what the method returns: nothing, a {@code CompletionStage},
	 * a {@code Future}, or a Reactive Streams {@code Publisher} or a type Spring's
	 * {@code ReactiveAdapterRegistry} adapts (Reactor, RxJava, Kotlin {@code Flow}), so that a
	 * task is acknowledged only once its work is done.
	 * @throws IllegalStateException naming the method if it returns anything else
	 */
	public DelayedTaskEndpoint {
		HandlerResults.awaiter(method);
	}

	/**
	 * Apply this endpoint's attributes over the queue's settings.
	 * @param queueSettings the settings configured for the queue
	 * @return the settings the container runs with
	 * @throws IllegalStateException naming the method if the result is inconsistent
	 */
	public ListenerSettings settings(ListenerSettings queueSettings) {
		if ((long) this.concurrency + queueSettings.prefetch() > ListenerSettings.MAX_CAPACITY) {
			throw new IllegalStateException("@DelayedTask " + describe() + ": concurrency " + this.concurrency
					+ " plus prefetch " + queueSettings.prefetch() + " (baton.queue.prefetch) is more than the "
					+ ListenerSettings.MAX_CAPACITY + " tasks a container may hold");
		}
		BackoffPolicy base = queueSettings.backoff();
		try {
			BackoffPolicy backoff = new BackoffPolicy(orDefault(this.backoffInitial, base.initial()),
					orDefault(this.backoffMultiplier, base.multiplier()), orDefault(this.backoffMax, base.max()));
			return new ListenerSettings(orDefault(this.maxAttempts, queueSettings.maxAttempts()), backoff,
					orDefault(this.visibilityTimeout, queueSettings.visibilityTimeout()), queueSettings.batchSize(),
					queueSettings.prefetch(), queueSettings.claimAhead(), queueSettings.maxIdlePoll(),
					queueSettings.shutdownTimeout(), queueSettings.maxDeliveries());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("@DelayedTask " + describe() + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * This endpoint with another concurrency, e.g. one configured for its queue.
	 * @param concurrency the most tasks handled at once, at least 1
	 * @return the endpoint
	 * @throws IllegalStateException naming the method if the concurrency is below 1
	 */
	public DelayedTaskEndpoint withConcurrency(int concurrency) {
		if (concurrency < 1) {
			throw new IllegalStateException("@DelayedTask " + describe() + ": concurrency configured for queue '"
					+ this.queue + "' must be at least 1, was " + concurrency);
		}
		return new DelayedTaskEndpoint(this.queue, this.bean, this.method, this.payloadType, concurrency,
				this.maxAttempts, this.backoffInitial, this.backoffMultiplier, this.backoffMax, this.visibilityTimeout,
				this.deadLetter);
	}

	/** The handler method as {@code Class.method}, for messages. */
	public String describe() {
		return this.method.getDeclaringClass().getName() + "." + this.method.getName();
	}

	private static <V> V orDefault(@Nullable V value, V fallback) {
		return (value != null) ? value : fallback;
	}

}
