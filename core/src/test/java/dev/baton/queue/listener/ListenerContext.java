package dev.baton.queue.listener;

import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.redis.RedisDelayQueues;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * An application context with the listener machinery, the given handler beans and the real
 * queue engine: what the tests start and stop like an application instance.
 */
final class ListenerContext implements AutoCloseable {

	final RedisDelayQueues queues;

	final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	final GenericApplicationContext context = new GenericApplicationContext();

	ListenerContext(RedisConnectionFactory connectionFactory, Function<String, ListenerSettings> settings,
			Object... handlers) {
		this(connectionFactory, UnaryOperator.identity(), settings, handlers);
	}

	/**
	 * A context whose containers consume the queues through {@code consumedThrough}, for example
	 * {@link FaultyQueues}; {@link #queues} stays the plain engine.
	 */
	ListenerContext(RedisConnectionFactory connectionFactory, UnaryOperator<DelayQueues> consumedThrough,
			Function<String, ListenerSettings> settings, Object... handlers) {
		this(connectionFactory, consumedThrough, settings, null, UnaryOperator.identity(), handlers);
	}

	/** A context whose queues and containers record observations in {@code observations}. */
	ListenerContext(RedisConnectionFactory connectionFactory, ObservationRegistry observations,
			Function<String, ListenerSettings> settings, Object... handlers) {
		this(connectionFactory, UnaryOperator.identity(), settings, observations, UnaryOperator.identity(), handlers);
	}

	/** A context whose registry is built with the customizer's settings too. */
	ListenerContext(RedisConnectionFactory connectionFactory, Function<String, ListenerSettings> settings,
			UnaryOperator<DelayedTaskListenerRegistry.Builder> registryCustomizer, Object... handlers) {
		this(connectionFactory, UnaryOperator.identity(), settings, null, registryCustomizer, handlers);
	}

	private ListenerContext(RedisConnectionFactory connectionFactory, UnaryOperator<DelayQueues> consumedThrough,
			Function<String, ListenerSettings> settings, @Nullable ObservationRegistry observations,
			UnaryOperator<DelayedTaskListenerRegistry.Builder> registryCustomizer, Object... handlers) {
		RedisDelayQueues.Builder queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build());
		if (observations != null) {
			queues.observationRegistry(observations);
		}
		this.queues = queues.build();
		DelayedTaskListenerRegistry.Builder registry = DelayedTaskListenerRegistry
			.builder(consumedThrough.apply(this.queues))
			.settings(settings)
			.meterRegistry(this.meters);
		if (observations != null) {
			registry.observationRegistry(observations);
		}
		this.context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		this.context.registerBean(DelayedTaskListenerRegistry.class, () -> registryCustomizer.apply(registry).build());
		for (Object handler : handlers) {
			registerHandler(handler);
		}
	}

	private <H> void registerHandler(H handler) {
		@SuppressWarnings("unchecked")
		Class<H> type = (Class<H>) handler.getClass();
		this.context.registerBean(type, () -> handler);
	}

	ListenerContext start() {
		this.context.refresh();
		return this;
	}

	DelayedTaskListenerRegistry registry() {
		return this.context.getBean(DelayedTaskListenerRegistry.class);
	}

	@Override
	public void close() {
		this.context.close();
		this.queues.close();
	}

}
