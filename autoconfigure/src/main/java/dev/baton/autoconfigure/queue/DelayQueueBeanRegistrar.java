package dev.baton.autoconfigure.queue;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.autoconfigure.PropertyKeys;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Registers a {@code DelayQueue<T>} bean, named {@code baton.queue.<name>}, for each queue that has
 * a {@code @DelayedTask} handler or is declared under {@code baton.queue.queues.<name>}, so that it
 * can be injected by generic type or with {@code @Qualifier("<name>")}. Handler methods are found on the bean
 * definitions' types before any bean is created; a declared queue takes its payload type from
 * {@code payload-type} or else from its handler.
 */
final class DelayQueueBeanRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

	static final String BEAN_NAME_PREFIX = "baton.queue.";

	private static final Bindable<Map<String, BatonQueueProperties.Queue>> QUEUES = Bindable
		.mapOf(String.class, BatonQueueProperties.Queue.class);

	private @Nullable Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		if (!(registry instanceof ConfigurableListableBeanFactory beanFactory) || this.environment == null) {
			return;
		}
		Map<String, Class<?>> payloadTypes = handledQueues(beanFactory);
		Binder.get(this.environment).bind("baton.queue.queues", QUEUES).orElse(Map.of()).forEach((name, queue) -> {
			Class<?> declared = queue.getPayloadType();
			Class<?> handled = payloadTypes.get(name);
			if (declared == null && handled == null) {
				String closest = PropertyKeys.closest(List.copyOf(payloadTypes.keySet()), name);
				throw new InvalidQueueSettingException(name, "baton.queue.queues." + name,
						"is declared but has no payload-type and no @DelayedTask handler to take it from"
								+ ((closest != null) ? "; did you mean '" + closest + "', which has a handler?" : ""),
						null);
			}
			if (declared != null && handled != null && !declared.equals(handled)) {
				throw new IllegalStateException("Queue '" + name + "' is declared with payload-type "
						+ declared.getName() + " but its @DelayedTask handler takes " + handled.getName());
			}
			payloadTypes.putIfAbsent(name, (declared != null) ? declared : handled);
		});
		payloadTypes.forEach((name, payloadType) -> {
			String beanName = beanName(name);
			if (!registry.containsBeanDefinition(beanName)) {
				registry.registerBeanDefinition(beanName, queueDefinition(beanFactory, name, payloadType));
			}
		});
	}

	private Map<String, Class<?>> handledQueues(ConfigurableListableBeanFactory beanFactory) {
		Map<String, Class<?>> payloadTypes = new LinkedHashMap<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = typeOf(beanFactory, beanName);
			if (type == null) {
				continue;
			}
			Map<Method, DelayedTask> handlers = MethodIntrospector.selectMethods(ClassUtils.getUserClass(type),
					(MethodIntrospector.MetadataLookup<DelayedTask>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, DelayedTask.class));
			handlers.forEach((method, annotation) -> payloadTypes.put(
					this.environment.resolvePlaceholders(annotation.queue()),
					DelayedTaskAnnotationBeanPostProcessor.payloadType(method)));
		}
		return payloadTypes;
	}

	private static @Nullable Class<?> typeOf(ConfigurableListableBeanFactory beanFactory, String beanName) {
		try {
			return beanFactory.getType(beanName, false);
		}
		catch (RuntimeException | LinkageError ex) {
			// a type that cannot be determined yet cannot be scanned; its handlers still run
			return null;
		}
	}

	/**
	 * The bean name of a queue's {@code DelayQueue}: {@code baton.queue.<name>}. A dot never occurs
	 * in the names Spring gives to components and {@code @Bean} methods, so no ordinary bean can
	 * take it, and an injection point's parameter name never matches it by accident.
	 * @param queue the queue name
	 * @return the bean name
	 */
	static String beanName(String queue) {
		return BEAN_NAME_PREFIX + queue;
	}

	private static <T> RootBeanDefinition queueDefinition(BeanFactory beanFactory, String name, Class<T> payloadType) {
		RootBeanDefinition definition = new RootBeanDefinition(DelayQueue.class,
				() -> beanFactory.getBean(DelayQueues.class).get(name, payloadType));
		definition.setTargetType(ResolvableType.forClassWithGenerics(DelayQueue.class, payloadType));
		// @Qualifier("<queue name>") selects the queue, whatever its bean name.
		definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
		return definition;
	}

}
