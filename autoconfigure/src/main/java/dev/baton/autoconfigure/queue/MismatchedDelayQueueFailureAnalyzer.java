package dev.baton.autoconfigure.queue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import dev.baton.queue.DelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

/**
 * Explains a {@code DelayQueue<T>} that could not be injected because no queue has that payload
 * type, naming the queues there are and their payload types: Spring Boot's general analysis would
 * say that no bean of type {@code DelayQueue} exists, which misleads when the queue does.
 */
final class MismatchedDelayQueueFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
		implements Ordered {

	private final @Nullable ConfigurableListableBeanFactory beanFactory;

	MismatchedDelayQueueFailureAnalyzer(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
		ResolvableType requested = cause.getResolvableType();
		if (this.beanFactory == null || requested == null || !DelayQueue.class.equals(requested.toClass())) {
			return null;
		}
		Map<String, ResolvableType> queues = queues(this.beanFactory);
		if (queues.isEmpty()) {
			return null;
		}
		String known = queues.entrySet()
			.stream()
			.map((queue) -> "'" + queue.getKey() + "' (" + queue.getValue().resolveGeneric(0).getName() + ")")
			.collect(Collectors.joining(", "));
		Map.Entry<String, ResolvableType> first = queues.entrySet().iterator().next();
		return new FailureAnalysis("A " + requested + " was to be injected, but no queue of this application has "
				+ "that payload type. Its queues are " + known + ".",
				"Inject the queue with its payload type, e.g. @Qualifier(\"" + first.getKey() + "\") "
						+ first.getValue() + ", or declare a queue of that type: baton.queue.queues.<name>.payload-type="
						+ requested.resolveGeneric(0).getName() + ".",
				cause);
	}

	/** The queues registered as beans, by name, with their {@code DelayQueue<T>} type. */
	private static Map<String, ResolvableType> queues(ConfigurableListableBeanFactory beanFactory) {
		Map<String, ResolvableType> queues = new LinkedHashMap<>();
		for (String beanName : beanFactory.getBeanNamesForType(DelayQueue.class, true, false)) {
			if (beanName.startsWith(DelayQueueBeanRegistrar.BEAN_NAME_PREFIX) && beanFactory.containsBeanDefinition(beanName)) {
				ResolvableType type = beanFactory.getMergedBeanDefinition(beanName).getResolvableType();
				queues.put(beanName.substring(DelayQueueBeanRegistrar.BEAN_NAME_PREFIX.length()), type);
			}
		}
		return queues;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
