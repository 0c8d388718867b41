package dev.baton.lock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ObjectUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@code @DistributedLock} method, parsed and checked once: which locks an invocation takes,
 * how long it waits and holds them, and what it returns when they are not acquired.
 */
final class LockedMethod {

	private final Method method;

	private final String description;

	private final String name;

	private final @Nullable Expression key;

	private final Duration waitTime;

	private final @Nullable Duration leaseTime;

	private final @Nullable Duration lockAtLeastFor;

	private final LockFailureResult onFailure;

	private final ReturnKind returnKind;

	private final ParameterNameDiscoverer parameterNames;

	private final @Nullable BeanResolver beans;

	LockedMethod(Method method, String description, String name, @Nullable Expression key, Duration waitTime,
			@Nullable Duration leaseTime, @Nullable Duration lockAtLeastFor, LockFailureResult onFailure,
			ReturnKind returnKind, ParameterNameDiscoverer parameterNames, @Nullable BeanResolver beans) {
		this.method = method;
		this.description = description;
		this.name = name;
		this.key = key;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.lockAtLeastFor = lockAtLeastFor;
		this.onFailure = onFailure;
		this.returnKind = returnKind;
		this.parameterNames = parameterNames;
		this.beans = beans;
	}

	Method method() {
		return this.method;
	}

	/** The annotation's lock name: the metric tag, and the prefix of every evaluated lock name. */
	String name() {
		return this.name;
	}

	Duration waitTime() {
		return this.waitTime;
	}

	@Nullable Duration leaseTime() {
		return this.leaseTime;
	}

	@Nullable Duration lockAtLeastFor() {
		return this.lockAtLeastFor;
	}

	ReturnKind returnKind() {
		return this.returnKind;
	}

	LockFailureResult onFailure() {
		return this.onFailure;
	}

	/**
	 * The locks an invocation takes, sorted so that every caller takes them in the same order.
	 * @param maxKeys the most elements a collection key may have
	 * @throws IllegalArgumentException if the key evaluates to null, an empty collection, a
	 * collection with a null element or more than {@code maxKeys} elements, or a value whose
	 * {@code toString()} is {@code Object}'s identity string
	 */
	SortedSet<String> lockNames(@Nullable Object[] arguments, int maxKeys) {
		SortedSet<String> names = new TreeSet<>();
		if (this.key == null) {
			names.add(this.name);
			return names;
		}
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(arguments, this.method, arguments,
				this.parameterNames);
		if (this.beans != null) {
			context.setBeanResolver(this.beans);
		}
		Object value = this.key.getValue(context);
		Collection<?> elements = elements(value);
		if (elements.size() > maxKeys) {
			throw new IllegalArgumentException(problem("evaluated to " + elements.size()
					+ " elements, more than the maximum of " + maxKeys + " (baton.lock.max-keys)"));
		}
		for (Object element : elements) {
			if (element == null) {
				throw new IllegalArgumentException(problem("evaluated to a null element"));
			}
			if (!VALUE_BASED.get(element.getClass())) {
				throw new IllegalArgumentException(problem("evaluated to a " + element.getClass().getName()
						+ ", whose toString() is Object's identity string: every call would get a lock of its own. "
						+ "Point the key at an id (e.g. '#order.id') or give the class a value-based toString()"));
			}
			names.add(this.name + ":" + element);
		}
		if (names.isEmpty()) {
			throw new IllegalArgumentException(problem("evaluated to an empty collection: there is nothing to lock"));
		}
		return names;
	}

	/** Whether a class's {@code toString()} describes its value, not the object's identity. */
	private static final ClassValue<Boolean> VALUE_BASED = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			Method toString = ReflectionUtils.findMethod(type, "toString");
			return !type.isArray() && toString != null && toString.getDeclaringClass() != Object.class;
		}

	};

	private Collection<?> elements(@Nullable Object value) {
		if (value == null) {
			throw new IllegalArgumentException(problem("evaluated to null"));
		}
		if (value instanceof Collection<?> collection) {
			return collection;
		}
		if (value.getClass().isArray()) {
			return List.of(ObjectUtils.toObjectArray(value));
		}
		return List.of(value);
	}

	private String problem(String what) {
		return "Key '" + this.key.getExpressionString() + "' of @DistributedLock on " + this.description + " " + what;
	}

	/** How a method returns its result, which decides when its locks are released. */
	enum ReturnKind {

		/** Released when the method returns. */
		DIRECT,

		/** Released when the returned {@code CompletionStage} completes. */
		COMPLETION_STAGE,

		/** Taken on subscription, released when the Reactor {@code Mono}/{@code Flux} terminates. */
		PUBLISHER

	}

}
