package dev.baton.autoconfigure.queue;

import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTaskConfiguration;
import dev.baton.queue.annotation.EnableDelayedTasks;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DefaultDelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskListenerContainerFactory;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.DelayedTaskListenerRegistryBuilderCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * {@code @DelayedTask} support: {@link EnableDelayedTasks @EnableDelayedTasks} unless the
 * application enables it itself or declares the post-processor or registry, and the customizers
 * that apply Spring Boot's settings to the registry it creates.
 */
@Configuration(proxyBeanMethods = false)
class DelayedTaskListenerConfiguration {

	private static final boolean MICROMETER_PRESENT = ClassUtils.isPresent(
			"io.micrometer.core.instrument.MeterRegistry", DelayedTaskListenerConfiguration.class.getClassLoader());

	@Bean
	DelayedTaskListenerRegistryBuilderCustomizer delayedTaskListenerPropertiesCustomizer(
			BatonQueueProperties properties, Environment environment) {
		return new BatonQueueConfigurer(properties, environment)::configure;
	}

	@Bean
	DelayedTaskListenerRegistryBuilderCustomizer delayedTaskListenerObservationCustomizer(BeanFactory beanFactory) {
		return (builder) -> {
			if (MICROMETER_PRESENT) {
				Metrics.apply(builder, beanFactory);
			}
			beanFactory.getBeanProvider(ObservationRegistry.class).ifUnique(builder::observationRegistry);
			beanFactory.getBeanProvider(TaskHandlingObservationConvention.class)
				.ifUnique(builder::handlingObservationConvention);
			beanFactory.getBeanProvider(DeadLetterReason.class).ifUnique(builder::deadLetterReason);
		};
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedTaskErrorHandler delayedTaskErrorHandler() {
		return new DefaultDelayedTaskErrorHandler();
	}

	/** The post-processor, when the application declares its own registry but none. */
	@Bean
	@ConditionalOnMissingBean
	static DelayedTaskAnnotationBeanPostProcessor delayedTaskAnnotationBeanPostProcessor() {
		return new DelayedTaskAnnotationBeanPostProcessor();
	}

	/** The registry, when the application declares its own post-processor but no registry. */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DelayQueues.class)
	DelayedTaskListenerRegistry delayedTaskListenerRegistry(DelayQueues delayQueues,
			ObjectProvider<DelayedTaskErrorHandler> errorHandler,
			ObjectProvider<DelayedTaskListenerContainerFactory> containerFactory,
			ObjectProvider<DelayedTaskListenerRegistryBuilderCustomizer> customizers) {
		return DelayedTaskConfiguration.registry(delayQueues, errorHandler, containerFactory, customizers);
	}

	/**
	 * Switches {@code @DelayedTask} on, unless the application has done so itself or declares
	 * the post-processor or the registry. Its conditions are evaluated before the beans of the
	 * enclosing class, which back off in turn when this registers both.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(DelayQueues.class)
	@ConditionalOnMissingBean(name = DelayedTaskConfiguration.ANNOTATION_PROCESSOR_BEAN_NAME,
			value = { DelayedTaskAnnotationBeanPostProcessor.class, DelayedTaskListenerRegistry.class })
	@EnableDelayedTasks
	static class EnableDelayedTasksConfiguration {

	}

	/** Touches Micrometer types only when Micrometer is on the class path. */
	private static final class Metrics {

		static void apply(DelayedTaskListenerRegistry.Builder builder, BeanFactory beanFactory) {
			beanFactory.getBeanProvider(MeterRegistry.class).ifAvailable(builder::meterRegistry);
		}

	}

}
