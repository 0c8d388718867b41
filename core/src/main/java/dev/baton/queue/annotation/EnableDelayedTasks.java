package dev.baton.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Switches on {@link DelayedTask @DelayedTask} handlers in an application without Spring Boot:
 * registers the {@link dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor} that
 * finds them, under {@value DelayedTaskConfiguration#ANNOTATION_PROCESSOR_BEAN_NAME}, and the
 * {@link dev.baton.queue.listener.DelayedTaskListenerRegistry} that runs them, under
 * {@value DelayedTaskConfiguration#LISTENER_REGISTRY_BEAN_NAME}. Put it on a
 * {@code @Configuration} class that also declares the {@link dev.baton.queue.DelayQueues
 * DelayQueues} bean the handlers consume, for example
 * {@code RedisDelayQueues.builder(connectionFactory, jsonMapper).build()}.
 *
 * <p>The registry starts its listener containers late in the context's start-up, once every
 * other bean is ready, and stops them early. Its settings (retries, visibility timeouts,
 * concurrency per queue, metrics, the shutdown phase timeout) are set by
 * {@link dev.baton.queue.listener.DelayedTaskListenerRegistryBuilderCustomizer} beans. Spring
 * Boot's auto-configuration applies this annotation itself unless the application does, and
 * declares the customizers that apply the {@code baton.queue.*} properties.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DelayedTaskConfiguration.class)
public @interface EnableDelayedTasks {

}
