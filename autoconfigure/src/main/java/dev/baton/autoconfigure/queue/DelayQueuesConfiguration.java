package dev.baton.autoconfigure.queue;

import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.PayloadEnvelope;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The {@link DelayQueues} on the application's Redis connection. Imported before
 * {@link DelayedTaskListenerConfiguration}, whose conditions look for it.
 */
@Configuration(proxyBeanMethods = false)
class DelayQueuesConfiguration {

	private static final boolean MICROMETER_PRESENT = ClassUtils
		.isPresent("io.micrometer.core.instrument.MeterRegistry", DelayQueuesConfiguration.class.getClassLoader());

	/** The largest string Redis stores (its default proto-max-bulk-len). */
	private static final long MAX_PAYLOAD_SIZE = 512L * 1024 * 1024;

	@Bean
	@ConditionalOnMissingBean(DelayQueues.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	RedisDelayQueues delayQueues(RedisConnectionFactory connectionFactory, ObjectProvider<JsonMapper> jsonMapper,
			BatonQueueProperties properties, BeanFactory beanFactory,
			ObjectProvider<DelayedTaskListenerRegistry> listenerRegistry) {
		RedisDelayQueues.Builder builder = RedisDelayQueues
			.builder(connectionFactory, jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()))
			.keyPrefix(properties.getKeyPrefix())
			.visibilityTimeout(properties.defaultVisibilityTimeout())
			.commandTimeout(properties.getCommandTimeout())
			.deadLetterRetention(properties::deadLetterRetention)
			.strictPayloads(properties::strictPayloads)
			.partitions(properties::partitions)
			.maxPayloadSize(maxPayloadSize(properties))
			// Declared or consumed queues get meters; dynamic names leave nothing behind.
			.knownQueues((name) -> beanFactory.containsBean(DelayQueueBeanRegistrar.beanName(name))
					|| listenerRegistry.getIfAvailable() != null
							&& listenerRegistry.getObject().getEndpoints().containsKey(name));
		if (MICROMETER_PRESENT) {
			Metrics.apply(builder, beanFactory);
		}
		beanFactory.getBeanProvider(ObservationRegistry.class).ifUnique(builder::observationRegistry);
		beanFactory.getBeanProvider(TaskSchedulingObservationConvention.class)
			.ifUnique(builder::schedulingObservationConvention);
		beanFactory.getBeanProvider(DeadLetterReason.class).ifUnique(builder::deadLetterReason);
		beanFactory.getBeanProvider(PayloadEnvelope.class).ifUnique(builder::payloadEnvelope);
		return builder.build();
	}

	private static int maxPayloadSize(BatonQueueProperties properties) {
		long bytes = properties.getMaxPayloadSize().toBytes();
		if (bytes < 1 || bytes > MAX_PAYLOAD_SIZE) {
			throw new IllegalArgumentException(
					"baton.queue.max-payload-size must be between 1B and 512MB, was " + properties.getMaxPayloadSize());
		}
		return (int) bytes;
	}

	/** Touches Micrometer types only when Micrometer is on the class path. */
	private static final class Metrics {

		static void apply(RedisDelayQueues.Builder builder, BeanFactory beanFactory) {
			beanFactory.getBeanProvider(MeterRegistry.class).ifAvailable(builder::meterRegistry);
		}

	}

}
