package dev.baton.autoconfigure.queue;

import java.util.Collection;
import java.util.stream.Collectors;

import dev.baton.queue.DelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

/**
 * Explains a {@code DelayQueue<T>} injected by type alone when several queues have that payload
 * type: names the queues and the {@code @Qualifier} that picks one. Ahead of Spring Boot's general
 * analysis of ambiguous beans, which would speak of bean names rather than queues.
 */
final class AmbiguousDelayQueueFailureAnalyzer extends AbstractFailureAnalyzer<NoUniqueBeanDefinitionException>
		implements Ordered {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoUniqueBeanDefinitionException cause) {
		ResolvableType type = cause.getResolvableType();
		Collection<String> beans = cause.getBeanNamesFound();
		if (type == null || !DelayQueue.class.isAssignableFrom(type.toClass()) || beans == null) {
			return null;
		}
		String queues = beans.stream()
			.map((bean) -> bean.startsWith(DelayQueueBeanRegistrar.BEAN_NAME_PREFIX)
					? bean.substring(DelayQueueBeanRegistrar.BEAN_NAME_PREFIX.length()) : bean)
			.collect(Collectors.joining("', '", "'", "'"));
		String first = queues.substring(1, queues.indexOf('\'', 1));
		return new FailureAnalysis(
				"A single " + type + " was to be injected, but the queues " + queues
						+ " all have that payload type, and Baton never picks one by the parameter's name.",
				"Name the queue at the injection point, e.g. @Qualifier(\"" + first + "\") " + type + " queue.",
				cause);
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
