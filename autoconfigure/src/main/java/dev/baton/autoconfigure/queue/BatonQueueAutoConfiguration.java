package dev.baton.autoconfigure.queue;

import java.time.Duration;

import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.PayloadEnvelope;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.listener.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DefaultDelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of delay queues on Redis ({@link DelayQueues} and a {@code DelayQueue<T>}
 * bean per known queue) and of the listener containers that run {@code @DelayedTask} handlers.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class },
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({ RedisDelayQueues.class, RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "baton.queue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonQueueProperties.class)
public final class BatonQueueAutoConfiguration {

	/** Spring Boot's default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	private static final Duration BOOT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

	private static final boolean MICROMETER_PRESENT = ClassUtils
		.isPresent("io.micrometer.core.instrument.MeterRegistry", BatonQueueAutoConfiguration.class.getClassLoader());

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

	/** The largest string Redis stores (its default proto-max-bulk-len). */
	private static final long MAX_PAYLOAD_SIZE = 512L * 1024 * 1024;

	private static int maxPayloadSize(BatonQueueProperties properties) {
		long bytes = properties.getMaxPayloadSize().toBytes();
		if (bytes < 1 || bytes > MAX_PAYLOAD_SIZE) {
			throw new IllegalArgumentException(
					"baton.queue.max-payload-size must be between 1B and 512MB, was " + properties.getMaxPayloadSize());
		}
		return (int) bytes;
	}

	@Bean
	@ConditionalOnBean(RedisConnectionFactory.class)
	EvictionPolicyCheck batonEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		return new EvictionPolicyCheck(connectionFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	static DelayedTaskAnnotationBeanPostProcessor delayedTaskAnnotationBeanPostProcessor() {
		return new DelayedTaskAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	static DelayQueueBeanRegistrar delayQueueBeanRegistrar() {
		return new DelayQueueBeanRegistrar();
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedTaskErrorHandler delayedTaskErrorHandler() {
		return new DefaultDelayedTaskErrorHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DelayQueues.class)
	DelayedTaskListenerRegistry delayedTaskListenerRegistry(DelayQueues delayQueues, BatonQueueProperties properties,
			Environment environment, BeanFactory beanFactory, DelayedTaskErrorHandler errorHandler) {
		DelayedTaskListenerRegistry.Builder builder = DelayedTaskListenerRegistry.builder(delayQueues)
			.errorHandler(errorHandler)
			.settings(properties::settings)
			.concurrency(properties::concurrency)
			.virtualThreads(Threading.VIRTUAL.isActive(environment))
			.shutdownPhaseTimeout(Binder.get(environment)
				.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
				.orElse(BOOT_SHUTDOWN_PHASE_TIMEOUT));
		if (MICROMETER_PRESENT) {
			Metrics.apply(builder, beanFactory);
		}
		beanFactory.getBeanProvider(ObservationRegistry.class).ifUnique(builder::observationRegistry);
		beanFactory.getBeanProvider(TaskHandlingObservationConvention.class)
			.ifUnique(builder::handlingObservationConvention);
		beanFactory.getBeanProvider(DeadLetterReason.class).ifUnique(builder::deadLetterReason);
		return builder.build();
	}

	/** Touches Micrometer types only when Micrometer is on the class path. */
	private static final class Metrics {

		static void apply(RedisDelayQueues.Builder builder, BeanFactory beanFactory) {
			beanFactory.getBeanProvider(MeterRegistry.class).ifAvailable(builder::meterRegistry);
		}

		static void apply(DelayedTaskListenerRegistry.Builder builder, BeanFactory beanFactory) {
			beanFactory.getBeanProvider(MeterRegistry.class).ifAvailable(builder::meterRegistry);
		}

	}

}
