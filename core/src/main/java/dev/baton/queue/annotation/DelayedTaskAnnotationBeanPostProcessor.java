package dev.baton.queue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.DelayedTaskEndpoint;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DelayedTask @DelayedTask} methods on beans, checks them and turns each into a
 * {@link DelayedTaskEndpoint}, handed to the {@link DelayedTaskListenerRegistry} bean once all
 * singletons exist. {@code ${...}} placeholders are resolved first. Every mistake fails start-up
 * with a message naming the method: a signature other than one payload parameter plus an
 * optional {@link TaskContext}, a payload type Jackson cannot create (an interface or abstract
 * class without {@code @JsonTypeInfo}, or a type variable), a return type Baton cannot wait for
 * (see {@link DelayedTaskEndpoint}), or an attribute that is not a number, range or duration. The registry rejects a second handler for a queue.
 */
public class DelayedTaskAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

	private final List<DelayedTaskEndpoint> endpoints = new ArrayList<>();

	private @Nullable BeanFactory beanFactory;

	private @Nullable DelayedTaskListenerRegistry registry;

	private Function<String, @Nullable String> valueResolver = Function.identity();

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.valueResolver = configurable::resolveEmbeddedValue;
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(targetClass, DelayedTask.class)) {
			return bean;
		}
		Map<Method, DelayedTask> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DelayedTask>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DelayedTask.class));
		annotated.forEach((method, annotation) -> {
			DelayedTaskEndpoint endpoint = endpoint(bean, method, annotation);
			if (this.registry != null) {
				// a lazy bean created after start-up
				this.registry.register(endpoint);
			}
			else {
				this.endpoints.add(endpoint);
			}
		});
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.endpoints.isEmpty() || this.beanFactory == null) {
			return;
		}
		this.registry = this.beanFactory.getBean(DelayedTaskListenerRegistry.class);
		this.endpoints.forEach(this.registry::register);
		this.endpoints.clear();
	}

	/**
	 * Check one annotated method and describe it as an endpoint.
	 * @param bean the bean declaring the method
	 * @param method the annotated method
	 * @param annotation its annotation
	 * @return the endpoint
	 * @throws IllegalStateException naming the method if anything is wrong with it
	 */
	DelayedTaskEndpoint endpoint(Object bean, Method method, DelayedTask annotation) {
		String name = describe(method);
		if (Modifier.isStatic(method.getModifiers())) {
			throw new IllegalStateException("@DelayedTask method " + name + " must not be static");
		}
		if (Modifier.isFinal(method.getModifiers()) && AopUtils.isCglibProxy(bean)) {
			// The proxy cannot override it: it would run on the proxy instance, whose fields are empty.
			throw new IllegalStateException("@DelayedTask method " + name + " is final on a proxied bean ("
					+ bean.getClass().getName() + "): the proxy cannot pass the call on, so it would run without "
					+ "the bean's state or advice. Make the method non-final.");
		}
		String queue = resolve(annotation.queue());
		if (!StringUtils.hasText(queue)) {
			throw new IllegalStateException("@DelayedTask method " + name + " needs a queue name");
		}
		Class<?> payloadType = payloadType(method);
		Backoff backoff = annotation.backoff();
		return new DelayedTaskEndpoint(queue, bean, AopUtils.selectInvocableMethod(method, bean.getClass()),
				payloadType, concurrency(annotation.concurrency(), name),
				parse(annotation.maxAttempts(), "maxAttempts", name, ListenerAttributes::attempts),
				parse(backoff.initial(), "backoff.initial", name, ListenerAttributes::duration),
				parse(backoff.multiplier(), "backoff.multiplier", name, ListenerAttributes::multiplier),
				parse(backoff.max(), "backoff.max", name, ListenerAttributes::duration),
				parse(annotation.visibilityTimeout(), "visibilityTimeout", name,
						ListenerAttributes::positiveDuration),
				annotation.deadLetter());
	}

	/**
	 * The payload type of a {@code @DelayedTask} method, checked as at start-up; for code that
	 * needs it before the bean exists (e.g. to register a {@code DelayQueue<T>} bean per queue).
	 * @param method the handler method
	 * @return the payload type, primitives as their wrapper
	 * @throws IllegalStateException naming the method if the signature or payload type is wrong
	 */
	public static Class<?> payloadType(Method method) {
		String name = describe(method);
		List<Integer> payloadIndexes = new ArrayList<>();
		Class<?>[] types = method.getParameterTypes();
		int contexts = 0;
		for (int i = 0; i < types.length; i++) {
			if (TaskContext.class.equals(types[i])) {
				contexts++;
			}
			else {
				payloadIndexes.add(i);
			}
		}
		if (payloadIndexes.size() != 1 || contexts > 1) {
			throw new IllegalStateException("@DelayedTask method " + name
					+ " must take exactly one payload parameter and optionally one TaskContext, but declares "
					+ List.of(types).stream().map(Class::getSimpleName).toList());
		}
		int index = payloadIndexes.get(0);
		Type generic = method.getGenericParameterTypes()[index];
		if (generic instanceof TypeVariable<?>) {
			throw new IllegalStateException("@DelayedTask method " + name + " has payload type variable " + generic
					+ ": the payload needs a concrete type to be read as JSON");
		}
		Class<?> payloadType = ClassUtils.resolvePrimitiveIfNecessary(types[index]);
		boolean abstractType = payloadType.isInterface() || Modifier.isAbstract(payloadType.getModifiers());
		if (abstractType && !payloadType.isArray()
				&& AnnotationUtils.findAnnotation(payloadType, JsonTypeInfo.class) == null) {
			throw new IllegalStateException("@DelayedTask method " + name + " has payload type "
					+ payloadType.getName() + ", an interface or abstract class without @JsonTypeInfo: "
					+ "JSON payloads cannot be read back as it; use a concrete class or add Jackson type information");
		}
		return payloadType;
	}

	private int concurrency(String text, String name) {
		String value = resolve(text);
		try {
			String[] range = value.trim().split("-", -1);
			int min = Integer.parseInt(range[0].trim());
			int max = (range.length == 2) ? Integer.parseInt(range[1].trim()) : min;
			if (range.length > 2 || min < 1 || max < min) {
				throw new NumberFormatException();
			}
			return max;
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("@DelayedTask method " + name + " has concurrency '" + value
					+ "': use a positive number (\"4\") or a range (\"2-8\") with min <= max", ex);
		}
	}

	private <V> @Nullable V parse(String text, String attribute, String name, Function<String, V> parser) {
		String value = resolve(text);
		if (value.isBlank()) {
			return null;
		}
		try {
			return parser.apply(value.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("@DelayedTask method " + name + " has " + attribute + " '" + value
					+ "': " + ex.getMessage(), ex);
		}
	}

	private String resolve(String text) {
		String resolved = this.valueResolver.apply(text);
		return (resolved != null) ? resolved : text;
	}

	private static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName();
	}

}
