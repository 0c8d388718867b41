package dev.baton.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.ObservationSettings;
import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.spi.ConsumableQueue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Owns one {@link DelayedTaskListenerContainer} per registered {@link DelayedTaskEndpoint} and
 * runs them as one {@link SmartLifecycle}: started late, after every other bean is ready, and
 * stopped early, before the beans handlers use are destroyed. Containers stop in parallel and
 * asynchronously ({@link #stop(Runnable)}), so shutdown takes at most the longest queue's
 * {@code shutdownTimeout} plus one bounded hand-back, whatever Redis does, and ends within the
 * context's shutdown phase ({@link Builder#shutdownPhaseTimeout}): when the phase ends first, the
 * context destroys beans under running handlers, so a longer {@code shutdownTimeout} is cut short
 * (with a warning at start).
 */
public final class DelayedTaskListenerRegistry implements SmartLifecycle {

	/** The lifecycle phase: late start, early stop. */
	public static final int PHASE = Integer.MAX_VALUE - 1000;

	/** How long plain Spring waits for a shutdown phase ({@code DefaultLifecycleProcessor}). */
	public static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(10);

	/** Resolves the endpoints' settings, and creates their containers unless another factory is set. */
	private final DefaultDelayedTaskListenerContainerFactory defaults;

	private final DelayedTaskListenerContainerFactory containerFactory;

	private final ParallelShutdown shutdown;

	private final Map<String, DelayedTaskEndpoint> endpoints = new LinkedHashMap<>();

	private final List<DelayedTaskContainer> containers = new ArrayList<>();

	private volatile boolean running;

	private DelayedTaskListenerRegistry(Builder builder) {
		BatonThreads threads = BatonThreads.of(builder.threadFactory);
		this.shutdown = new ParallelShutdown(threads, builder.shutdownPhaseTimeout);
		HandlerMetrics metrics = (builder.meterRegistry != null) ? new MicrometerHandlerMetrics(builder.meterRegistry)
				: HandlerMetrics.NONE;
		this.defaults = new DefaultDelayedTaskListenerContainerFactory(threads, builder.queues, builder.settings,
				builder.concurrency, builder.virtualThreads, metrics,
				new ObservationSettings<>(ObservationSettings.registry(builder.observationRegistry, builder.meterRegistry),
						builder.handlingConvention),
				builder.deadLetterReason, builder.errorHandler, this.shutdown.maxWait());
		this.containerFactory = (builder.containerFactory != null) ? builder.containerFactory : this.defaults;
	}

	/**
	 * Start building a registry.
	 * @param queues the queues to consume; they must implement {@link ConsumableQueue}
	 * @return a builder
	 */
	public static Builder builder(DelayQueues queues) {
		return new Builder(queues);
	}

	/**
	 * Add a handler. The settings of its queue are resolved at once, so that an inconsistent
	 * combination fails here, naming the method.
	 * @param registered the handler; a concurrency configured for its queue replaces its own
	 * @throws IllegalStateException if the queue already has a handler, or its settings are
	 * inconsistent
	 */
	public synchronized void register(DelayedTaskEndpoint registered) {
		DelayedTaskEndpoint endpoint = this.defaults.resolve(registered);
		DelayedTaskEndpoint existing = this.endpoints.putIfAbsent(endpoint.queue(), endpoint);
		if (existing != null && !existing.equals(endpoint)) {
			throw new IllegalStateException("Queue '" + endpoint.queue() + "' has two @DelayedTask handlers: "
					+ existing.describe() + " and " + endpoint.describe() + "; a queue has at most one handler");
		}
		if (this.running) {
			startContainer(endpoint);
		}
	}

	/** The registered handlers, by queue name. */
	public synchronized Map<String, DelayedTaskEndpoint> getEndpoints() {
		return Map.copyOf(this.endpoints);
	}

	/**
	 * The status of each running container, for health checks.
	 * @return the statuses by queue name, empty when stopped
	 */
	public synchronized Map<String, DelayedTaskListenerStatus> getStatuses() {
		Map<String, DelayedTaskListenerStatus> statuses = new LinkedHashMap<>();
		this.containers.forEach((container) -> statuses.put(container.getQueueName(), container.getStatus()));
		return statuses;
	}

	/**
	 * The running containers, one per registered handler's queue.
	 * @return the containers, empty when stopped
	 */
	public synchronized List<DelayedTaskContainer> getContainers() {
		return List.copyOf(this.containers);
	}

	/**
	 * The status of the container that consumes a queue, for health checks.
	 * @param queue the queue name
	 * @return the status, or empty if no container consumes the queue
	 */
	public Optional<DelayedTaskListenerStatus> getStatus(String queue) {
		return Optional.ofNullable(getStatuses().get(queue));
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.endpoints.values().forEach(this::startContainer);
	}

	@Override
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			stopped.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stop every container in parallel, without blocking the caller: {@code callback} runs once
	 * all have stopped, at most the longest {@code shutdownTimeout} plus one bounded hand-back
	 * later.
	 */
	@Override
	public void stop(Runnable callback) {
		List<DelayedTaskContainer> stopping;
		synchronized (this) {
			if (!this.running) {
				callback.run();
				return;
			}
			this.running = false;
			stopping = List.copyOf(this.containers);
			this.containers.clear();
		}
		this.shutdown.stop(stopping, callback);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private void startContainer(DelayedTaskEndpoint endpoint) {
		DelayedTaskContainer container = this.containerFactory.createContainer(endpoint);
		this.containers.add(container);
		container.start();
	}

	/**
	 * Builds a {@link DelayedTaskListenerRegistry}.
	 */
	public static final class Builder {

		private final DelayQueues queues;

		private Function<String, ListenerSettings> settings = (queue) -> ListenerSettings.DEFAULTS;

		private Function<String, @Nullable Integer> concurrency = (queue) -> null;

		private boolean virtualThreads;

		private @Nullable MeterRegistry meterRegistry;

		private @Nullable ObservationRegistry observationRegistry;

		private @Nullable TaskHandlingObservationConvention handlingConvention;

		private Duration shutdownPhaseTimeout = DEFAULT_SHUTDOWN_PHASE_TIMEOUT;

		private DeadLetterReason deadLetterReason = DeadLetterReason.EXCEPTION_CLASS;

		private DelayedTaskErrorHandler errorHandler = new DefaultDelayedTaskErrorHandler();

		private @Nullable DelayedTaskListenerContainerFactory containerFactory;

		private @Nullable ThreadFactory threadFactory;

		private Builder(DelayQueues queues) {
			this.queues = queues;
		}

		/**
		 * Set the settings of each queue, before annotation attributes apply. The default is
		 * {@link ListenerSettings#DEFAULTS} for every queue.
		 * @param settings the settings by queue name
		 * @return this builder
		 */
		public Builder settings(Function<String, ListenerSettings> settings) {
			this.settings = settings;
			return this;
		}

		/**
		 * Set the concurrency configured per queue, which replaces the handler's own; {@code null}
		 * for a queue keeps the handler's. By default every handler keeps its own.
		 * @param concurrency the concurrency by queue name, or {@code null}
		 * @return this builder
		 */
		public Builder concurrency(Function<String, @Nullable Integer> concurrency) {
			this.concurrency = concurrency;
			return this;
		}

		/**
		 * Set whether handlers run on virtual threads (Java 21 and later), a new one for each of a
		 * handler's workers, rather than on a pool of platform threads per handler. A
		 * {@link #threadFactory thread factory} wins: with one, handlers run on its threads
		 * whatever this says, and {@code true} only makes each worker a new thread of it rather
		 * than one of a pool (as suits a factory of virtual threads). The default is
		 * {@code false}.
		 * @param virtualThreads whether to use virtual threads
		 * @return this builder
		 */
		public Builder virtualThreads(boolean virtualThreads) {
			this.virtualThreads = virtualThreads;
			return this;
		}

		/**
		 * Record the {@code baton.queue.lateness} timer, and the {@code baton.queue.handle}
		 * timer unless an {@link #observationRegistry} is set. By default nothing is recorded.
		 * @param meterRegistry the registry to record to
		 * @return this builder
		 */
		public Builder meterRegistry(MeterRegistry meterRegistry) {
			this.meterRegistry = meterRegistry;
			return this;
		}

		/**
		 * Observe handling in this registry: the {@code baton.queue.handle} timer comes from its
		 * meter handler, and with tracing each handling runs in a span, a child of the span that
		 * scheduled the task.
		 * @param observationRegistry the registry
		 * @return this builder
		 */
		public Builder observationRegistry(ObservationRegistry observationRegistry) {
			this.observationRegistry = observationRegistry;
			return this;
		}

		/**
		 * Name and tag the observations of handling with this convention instead of
		 * {@link dev.baton.observation.DefaultTaskHandlingObservationConvention}.
		 * @param convention the convention
		 * @return this builder
		 */
		public Builder handlingObservationConvention(TaskHandlingObservationConvention convention) {
			this.handlingConvention = convention;
			return this;
		}

		/**
		 * Set how long the context waits for the registry's shutdown phase, the
		 * {@code DefaultLifecycleProcessor}'s timeout for {@link #PHASE}. Stopping ends within it,
		 * so that the context does not destroy the beans handlers use while they run: the wait
		 * for running handlers is cut to this less the final hand-back and a second. The default
		 * is {@link #DEFAULT_SHUTDOWN_PHASE_TIMEOUT}, plain Spring's; Spring Boot's is
		 * {@code spring.lifecycle.timeout-per-shutdown-phase}.
		 * @param shutdownPhaseTimeout the phase timeout
		 * @return this builder
		 */
		public Builder shutdownPhaseTimeout(Duration shutdownPhaseTimeout) {
			this.shutdownPhaseTimeout = shutdownPhaseTimeout;
			return this;
		}

		/**
		 * Set what a handler's last failure leaves as the reason of its dead letter. The default,
		 * {@link DeadLetterReason#EXCEPTION_CLASS}, keeps no exception message: messages often
		 * quote personal data, which would stay in Redis as long as the dead letter.
		 * @param deadLetterReason the reason of each failure
		 * @return this builder
		 */
		public Builder deadLetterReason(DeadLetterReason deadLetterReason) {
			this.deadLetterReason = deadLetterReason;
			return this;
		}

		/**
		 * Set what happens to a task whose handler failed. The default,
		 * {@link DefaultDelayedTaskErrorHandler}, retries on each queue's back-off and gives up
		 * after its {@code max-attempts}.
		 * @param errorHandler the error handler of every queue
		 * @return this builder
		 */
		public Builder errorHandler(DelayedTaskErrorHandler errorHandler) {
			Assert.notNull(errorHandler, "errorHandler must not be null");
			this.errorHandler = errorHandler;
			return this;
		}

		/**
		 * Set what creates each handler's container, instead of Baton's; it receives each
		 * endpoint with its queue's settings merged in. The settings, error handler, metrics,
		 * observation, virtual threads, thread factory (but for stopping) and dead-letter reason of
		 * this builder apply only to Baton's own factory.
		 * @param containerFactory the factory
		 * @return this builder
		 */
		public Builder containerFactory(DelayedTaskListenerContainerFactory containerFactory) {
			Assert.notNull(containerFactory, "containerFactory must not be null");
			this.containerFactory = containerFactory;
			return this;
		}

		/**
		 * Make Baton's listener threads with this factory: the threads that stop each container
		 * ({@code baton-queue-stop-<queue>}), and in the containers of Baton's own factory each
		 * queue's claim loop ({@code baton-queue-<queue>}), acknowledgements
		 * ({@code baton-ack-<queue>}, {@code baton-ack-retry-<queue>}) and hand-backs
		 * ({@code baton-queue-hand-back-<queue>}, {@code baton-queue-give-back-<queue>}); also
		 * their visibility timer ({@code baton-queue-visibility-<queue>}) when it makes platform
		 * threads, but never as a virtual thread, so that an extension never waits for a carrier
		 * thread. Also each handler's threads ({@code baton-queue-<queue>-1}, {@code -2}, and so
		 * on), in the containers of Baton's own factory: a pool of them up to the handler's
		 * concurrency, or a new one for each worker with {@link #virtualThreads} {@code true};
		 * this factory wins over {@link #virtualThreads}. Baton names each thread and makes each
		 * platform thread a daemon. The default is Baton's own daemon platform threads (or virtual
		 * threads for the handlers, with {@link #virtualThreads} {@code true}).
		 * @param threadFactory the factory, for instance of virtual threads
		 * @return this builder
		 */
		public Builder threadFactory(ThreadFactory threadFactory) {
			Assert.notNull(threadFactory, "threadFactory must not be null");
			this.threadFactory = threadFactory;
			return this;
		}

		/**
		 * Build the registry.
		 * @return the registry
		 */
		public DelayedTaskListenerRegistry build() {
			return new DelayedTaskListenerRegistry(this);
		}

	}

}
