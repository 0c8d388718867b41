package dev.baton.autoconfigure.queue;

import dev.baton.autoconfigure.redis.PrimarySwitches;
import dev.baton.lock.LockManager;
import dev.baton.lock.spi.TokenLeases;
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
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@link DelayQueues} on the application's Redis connection. Imported before
 * {@link DelayedTaskListenerConfiguration}, whose conditions look for it.
 */
@Configuration(proxyBeanMethods = false)
class DelayQueuesConfiguration {

	@Bean
	@ConditionalOnMissingBean(DelayQueues.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	RedisDelayQueues delayQueues(RedisConnectionFactory connectionFactory, ObjectProvider<JsonMapper> jsonMapper,
			BatonQueueProperties properties, Environment environment, BeanFactory beanFactory,
			ObjectProvider<DelayedTaskListenerRegistry> listenerRegistry,
			ObjectProvider<RedisDelayQueuesBuilderCustomizer> customizers, ObjectProvider<PrimarySwitches> primarySwitches) {
		RedisDelayQueues.Builder builder = RedisDelayQueues
			.builder(connectionFactory, jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()))
			// Declared or consumed queues get meters; dynamic names leave nothing behind.
			.knownQueues((name) -> beanFactory.containsBean(DelayQueueBeanRegistrar.beanName(name))
					|| listenerRegistry.getIfAvailable() != null
							&& listenerRegistry.getObject().getEndpoints().containsKey(name));
		new BatonQueueConfigurer(properties, environment).configure(builder);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		RedisDelayQueues queues = builder.build();
		primarySwitches.ifAvailable((switches) -> switches.watch().ifPresent(queues::followPrimarySwitches));
		return queues;
	}

	/**
	 * Scheduling observed in the application's {@link ObservationRegistry}, named by its
	 * convention if it declares one, its dead-letter reason and payload envelope if it declares
	 * them, and tasks that hold locks of its lock manager if that can give locks to tasks.
	 */
	@Bean
	RedisDelayQueuesBuilderCustomizer delayQueuesApplicationBeansCustomizer(
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<TaskSchedulingObservationConvention> convention,
			ObjectProvider<DeadLetterReason> deadLetterReason, ObjectProvider<PayloadEnvelope> payloadEnvelope,
			ObjectProvider<LockManager> lockManager) {
		return (builder) -> {
			lockManager.ifUnique((locks) -> {
				if (locks instanceof TokenLeases) {
					builder.lockManager(locks);
				}
			});
			observationRegistry.ifUnique(builder::observationRegistry);
			convention.ifUnique(builder::schedulingObservationConvention);
			deadLetterReason.ifUnique(builder::deadLetterReason);
			payloadEnvelope.ifUnique(builder::payloadEnvelope);
		};
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class DelayQueuesMetricsConfiguration {

		@Bean
		RedisDelayQueuesBuilderCustomizer delayQueuesMetricsCustomizer(ObjectProvider<MeterRegistry> meterRegistry) {
			return (builder) -> meterRegistry.ifAvailable(builder::meterRegistry);
		}

	}

}
