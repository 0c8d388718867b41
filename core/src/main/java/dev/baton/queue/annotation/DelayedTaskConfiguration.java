package dev.baton.queue.annotation;

import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import dev.baton.queue.listener.DelayedTaskListenerContainerFactory;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.DelayedTaskListenerRegistryBuilderCustomizer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Registers the infrastructure behind {@link EnableDelayedTasks @EnableDelayedTasks}: the
 * {@link DelayedTaskAnnotationBeanPostProcessor} under {@link #ANNOTATION_PROCESSOR_BEAN_NAME}
 * and the {@link DelayedTaskListenerRegistry} under {@link #LISTENER_REGISTRY_BEAN_NAME}, with the
 * application's {@link DelayedTaskErrorHandler} and {@link DelayedTaskListenerContainerFactory} beans, if
 * it declares them.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public final class DelayedTaskConfiguration {

	/** The bean name of the {@link DelayedTaskAnnotationBeanPostProcessor}. */
	public static final String ANNOTATION_PROCESSOR_BEAN_NAME = "dev.baton.queue.annotation.internalDelayedTaskAnnotationProcessor";

	/** The bean name of the {@link DelayedTaskListenerRegistry}. */
	public static final String LISTENER_REGISTRY_BEAN_NAME = "dev.baton.queue.annotation.internalDelayedTaskListenerRegistry";

	@Bean(name = ANNOTATION_PROCESSOR_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DelayedTaskAnnotationBeanPostProcessor delayedTaskAnnotationProcessor() {
		return new DelayedTaskAnnotationBeanPostProcessor();
	}

	@Bean(name = LISTENER_REGISTRY_BEAN_NAME)
	DelayedTaskListenerRegistry delayedTaskListenerRegistry(DelayQueues delayQueues,
			ObjectProvider<DelayedTaskErrorHandler> errorHandler,
			ObjectProvider<DelayedTaskListenerContainerFactory> containerFactory,
			ObjectProvider<DelayedTaskListenerRegistryBuilderCustomizer> customizers) {
		return registry(delayQueues, errorHandler, containerFactory, customizers);
	}

	/**
	 * A registry of the queues with the application's error handler and container factory, if it
	 * declares them, and its customizers applied in order: also what Spring Boot builds when the
	 * application declares its own post-processor but no registry.
	 * @param delayQueues the queues to consume
	 * @param errorHandler the application's error handler, if any
	 * @param containerFactory the application's container factory, if any
	 * @param customizers the customizers of the registry's builder
	 * @return the registry
	 */
	public static DelayedTaskListenerRegistry registry(DelayQueues delayQueues,
			ObjectProvider<DelayedTaskErrorHandler> errorHandler,
			ObjectProvider<DelayedTaskListenerContainerFactory> containerFactory,
			ObjectProvider<DelayedTaskListenerRegistryBuilderCustomizer> customizers) {
		DelayedTaskListenerRegistry.Builder builder = DelayedTaskListenerRegistry.builder(delayQueues);
		errorHandler.ifUnique(builder::errorHandler);
		containerFactory.ifUnique(builder::containerFactory);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

}
