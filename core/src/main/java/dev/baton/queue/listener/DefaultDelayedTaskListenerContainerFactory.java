package dev.baton.queue.listener;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.ObservationSettings;
import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.spi.ConsumableQueue;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.util.Assert;

/**
 * Baton's container factory, and the one place where a handler's settings are merged with its
 * queue's: the registry resolves each endpoint here when it is registered, so that an
 * inconsistent combination fails at once, naming the method.
 */
final class DefaultDelayedTaskListenerContainerFactory implements DelayedTaskListenerContainerFactory {

	private static final Log logger = LogFactory.getLog(DelayedTaskListenerRegistry.class);

	private final BatonThreads threads;

	private final DelayQueues queues;

	private final Function<String, ListenerSettings> settings;

	private final Function<String, @Nullable Integer> concurrency;

	private final boolean virtualThreads;

	private final HandlerMetrics metrics;

	private final ObservationSettings<TaskHandlingObservationConvention> observations;

	private final DeadLetterReason deadLetterReason;

	private final DelayedTaskErrorHandler errorHandler;

	/** The longest a container waits for running handlers when stopping, whatever its settings. */
	private final Duration maxShutdownWait;

	DefaultDelayedTaskListenerContainerFactory(BatonThreads threads, DelayQueues queues,
			Function<String, ListenerSettings> settings, Function<String, @Nullable Integer> concurrency,
			boolean virtualThreads, HandlerMetrics metrics,
			ObservationSettings<TaskHandlingObservationConvention> observations, DeadLetterReason deadLetterReason,
			DelayedTaskErrorHandler errorHandler, Duration maxShutdownWait) {
		this.threads = threads;
		this.queues = queues;
		this.settings = settings;
		this.concurrency = concurrency;
		this.virtualThreads = virtualThreads;
		this.metrics = metrics;
		this.observations = observations;
		this.deadLetterReason = deadLetterReason;
		this.errorHandler = errorHandler;
		this.maxShutdownWait = maxShutdownWait;
	}

	/**
	 * The endpoint as it runs: a concurrency configured for its queue replaces its own, and its
	 * settings are checked against the queue's.
	 * @throws IllegalStateException if its settings are inconsistent
	 */
	DelayedTaskEndpoint resolve(DelayedTaskEndpoint registered) {
		Integer configured = this.concurrency.apply(registered.queue());
		DelayedTaskEndpoint endpoint = (configured != null) ? registered.withConcurrency(configured) : registered;
		endpoint.settings(this.settings.apply(endpoint.queue()));
		return endpoint;
	}

	@Override
	public DelayedTaskContainer createContainer(DelayedTaskEndpoint endpoint) {
		ListenerSettings queueSettings = endpoint.settings(this.settings.apply(endpoint.queue()));
		DelayQueue<?> queue = this.queues.get(endpoint.queue(), endpoint.payloadType());
		Assert.state(queue instanceof ConsumableQueue<?>,
				() -> "Queue '" + endpoint.queue() + "' cannot be consumed by a listener container: "
						+ queue.getClass().getName() + " does not implement ConsumableQueue");
		@SuppressWarnings("unchecked")
		ConsumableQueue<Object> consumable = (ConsumableQueue<Object>) queue;
		warnIfShutdownIsCut(endpoint.queue(), queueSettings.shutdownTimeout());
		logger.info("@DelayedTask handler " + endpoint.describe() + " consumes queue '" + endpoint.queue()
				+ "' with concurrency " + endpoint.concurrency() + ", max attempts " + queueSettings.maxAttempts()
				+ ", visibility timeout " + queueSettings.visibilityTimeout().toMillis() + " ms");
		HandlerThreads handlers = handlerThreads(endpoint);
		return new DelayedTaskListenerContainer(this.threads, consumable, endpoint, queueSettings, handlers.executor(),
				this.metrics, this.observations, this.deadLetterReason, this.errorHandler, handlers.release());
	}

	/** An inconsistent configuration: stopping cannot wait as long as the queue's shutdown timeout says. */
	private void warnIfShutdownIsCut(String queue, Duration shutdownTimeout) {
		if (shutdownTimeout.compareTo(this.maxShutdownWait) > 0) {
			logger.warn("Queue '" + queue + "' has a shutdown timeout of " + shutdownTimeout.toMillis()
					+ " ms, but the context's shutdown phase allows stopping to wait only "
					+ this.maxShutdownWait.toMillis() + " ms for running handlers (then their tasks are handed back, "
					+ "which may take " + DelayedTaskListenerContainer.HAND_BACK_TIMEOUT.toMillis()
					+ " ms); raise the phase timeout (spring.lifecycle.timeout-per-shutdown-phase with Spring Boot, "
					+ "otherwise the lifecycle processor's and the registry builder's shutdownPhaseTimeout) or lower "
					+ "the shutdown timeout");
		}
	}

	/**
	 * The handlers' threads, named {@code baton-queue-<queue>-<n>}: from the registry's thread
	 * factory when it has one, whether or not virtual threads are asked for; otherwise virtual
	 * threads when asked for, else Baton's own platform threads.
	 */
	private HandlerThreads handlerThreads(DelayedTaskEndpoint endpoint) {
		String prefix = "baton-queue-" + endpoint.queue() + "-";
		if (this.virtualThreads) {
			// A thread per worker; the container starts at most concurrency workers
			BatonThreads threads = this.threads.hasFactory() ? this.threads
					: BatonThreads.of(new VirtualThreadTaskExecutor(prefix).getVirtualThreadFactory());
			SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor(threads.numbered(prefix));
			return new HandlerThreads(executor, executor::close);
		}
		// Threads start on demand up to the concurrency and retire after a minute without work
		ThreadPoolExecutor pool = new ThreadPoolExecutor(endpoint.concurrency(), endpoint.concurrency(), 1,
				TimeUnit.MINUTES, new LinkedBlockingQueue<>(), this.threads.numbered(prefix));
		pool.allowCoreThreadTimeOut(true);
		return new HandlerThreads(pool, pool::shutdown);
	}

	/** Where a container runs its handlers, and how to stop those threads once it stopped. */
	private record HandlerThreads(Executor executor, Runnable release) {

	}

}
