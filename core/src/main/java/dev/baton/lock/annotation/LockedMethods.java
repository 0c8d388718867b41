package dev.baton.lock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.baton.internal.Durations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Finds {@code @DistributedLock} methods and parses each once, failing with a message that names
 * the method when an attribute is invalid.
 */
final class LockedMethods {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockedMethods.class.getClassLoader());

	private static final SpelExpressionParser parser = new SpelExpressionParser();

	private static final Log logger = LogFactory.getLog(LockedMethods.class);

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();

	private volatile Duration defaultWaitTime;

	/** Runs before the first annotated method is parsed; see {@link DistributedLockAdvisor#setCustomizers}. */
	private volatile Runnable beforeFirstParse = () -> {
	};

	private @Nullable BeanFactory beanFactory;

	private volatile int maxKeys = 100;

	private volatile boolean failOnUnproxiedCalls;

	/** The classes whose self-invocations were checked. */
	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet();

	LockedMethods(Duration defaultWaitTime) {
		this.defaultWaitTime = defaultWaitTime;
	}

	void setDefaultWaitTime(Duration defaultWaitTime) {
		this.defaultWaitTime = defaultWaitTime;
	}

	void beforeFirstParse(Runnable action) {
		this.beforeFirstParse = action;
	}

	int maxKeys() {
		return this.maxKeys;
	}

	void setMaxKeys(int maxKeys) {
		this.maxKeys = maxKeys;
	}

	void setFailOnUnproxiedCalls(boolean failOnUnproxiedCalls) {
		this.failOnUnproxiedCalls = failOnUnproxiedCalls;
	}

	/**
	 * Reports the calls a class makes to its own {@code @DistributedLock} methods, which bypass
	 * the proxy and run unlocked. Once per class, at start-up.
	 * @param userClass the class as written
	 * @param annotated its annotated methods
	 */
	void checkSelfInvocations(Class<?> userClass, Set<Method> annotated) {
		if (annotated.isEmpty() || !this.checkedClasses.add(userClass)) {
			return;
		}
		this.beforeFirstParse.run();
		for (String call : SelfInvocations.of(userClass, annotated, (method) -> method.getName() + "("
				+ parameterTypes(method) + ")")) {
			unproxied("@DistributedLock is bypassed by the call " + call + ": a call from inside the class does not "
					+ "go through the Spring proxy, so it runs without the lock. Call it through the bean (inject "
					+ "it, or move the locked method to another bean).");
		}
	}

	void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * The parsed lock of a method, or {@code null} if it has no {@code @DistributedLock}.
	 * @throws IllegalStateException if the annotation is invalid
	 */
	@Nullable LockedMethod find(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Object found = this.cache.get(key);
		if (found == null) {
			// Parsed outside the map: the first parse runs customizers, which may create beans
			// whose methods are looked up here in turn.
			LockedMethod parsed = parse(method, targetClass);
			Object value = (parsed != null) ? parsed : Boolean.FALSE;
			Object raced = this.cache.putIfAbsent(key, value);
			found = (raced != null) ? raced : value;
		}
		return (found instanceof LockedMethod locked) ? locked : null;
	}

	private @Nullable LockedMethod parse(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null) {
			return null;
		}
		this.beforeFirstParse.run();
		String description = userClass.getSimpleName() + "." + specific.getName() + "("
				+ parameterTypes(specific) + ")";
		warnIfNotProxied(specific, userClass, description);
		String name = annotation.name().isBlank() ? userClass.getSimpleName() + "." + specific.getName()
				: resolve(annotation.name(), "name", description);
		LockedMethod.ReturnKind kind = returnKind(specific);
		Supplier<Object> reactiveEmpty = (kind == LockedMethod.ReturnKind.PUBLISHER)
				? ReactiveLocking.emptyValue(specific.getReturnType()) : null;
		return new LockedMethod(specific, description, name, key(annotation.key(), specific, description),
				duration(annotation.waitTime(), "waitTime", description, this.defaultWaitTime),
				positive(duration(annotation.leaseTime(), "leaseTime", description, null), "leaseTime", description),
				duration(annotation.lockAtLeastFor(), "lockAtLeastFor", description, null),
				LockFailureResult.of(annotation, specific, userClass, description, reactiveEmpty), kind,
				this.parameterNames, (this.beanFactory != null) ? new BeanFactoryResolver(this.beanFactory) : null);
	}

	/**
	 * Warns about an annotation that a Spring proxy cannot apply: the method runs unlocked. Called
	 * once per method, when its bean is proxied at start-up.
	 */
	private void warnIfNotProxied(Method method, Class<?> userClass, String description) {
		int modifiers = method.getModifiers();
		String why = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
				: Modifier.isFinal(modifiers) ? "final" : null;
		if (why == null && isPackagePrivate(modifiers)
				&& !method.getDeclaringClass().getPackageName().equals(userClass.getPackageName())) {
			// The proxy, a subclass in the bean's package, cannot override it: the call runs on the proxy.
			unproxied("@DistributedLock on " + description + " has no effect: the method is package-private in "
					+ method.getDeclaringClass().getName() + ", another package than the bean's, and a Spring proxy "
					+ "cannot intercept it there, so it runs without the lock. Make it public or protected.");
			return;
		}
		if (why != null) {
			unproxied("@DistributedLock on " + description + " has no effect: the method is " + why
					+ ", and a Spring proxy cannot intercept " + why + " methods, so it runs without the lock. "
					+ "Make it public (or protected), not static and not final, and call it through the bean, "
					+ "not from inside its own class.");
		}
	}

	private static boolean isPackagePrivate(int modifiers) {
		return !Modifier.isPublic(modifiers) && !Modifier.isProtected(modifiers) && !Modifier.isPrivate(modifiers);
	}

	/** A lock that a proxy cannot apply: a warning, or a start-up failure when asked for. */
	private void unproxied(String message) {
		if (this.failOnUnproxiedCalls) {
			throw new IllegalStateException(message + " (fail-on-unproxied-calls is set: baton.lock."
					+ "fail-on-unproxied-calls, or @EnableDistributedLocks(failOnUnproxiedCalls = true) without Spring Boot)");
		}
		logger.warn(message);
	}

	static String parameterTypes(Method method) {
		return Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "));
	}

	private static LockedMethod.ReturnKind returnKind(Method method) {
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type)) {
			return LockedMethod.ReturnKind.COMPLETION_STAGE;
		}
		if (reactorPresent && ReactiveLocking.isPublisher(type)) {
			return LockedMethod.ReturnKind.PUBLISHER;
		}
		return LockedMethod.ReturnKind.DIRECT;
	}

	private @Nullable Expression key(String text, Method method, String description) {
		if (text.isBlank()) {
			return null;
		}
		SpelExpression expression;
		try {
			expression = parser.parseRaw(text);
		}
		catch (ParseException ex) {
			throw new IllegalStateException(
					"@DistributedLock on " + description + ": key '" + text + "' is not valid SpEL: " + ex.getMessage(),
					ex);
		}
		List<String> allowed = variables(method);
		checkReferences(expression.getAST(), text, description, allowed);
		return expression;
	}

	private List<String> variables(Method method) {
		List<String> names = new ArrayList<>(List.of("root", "this"));
		String[] discovered = this.parameterNames.getParameterNames(method);
		if (discovered != null) {
			names.addAll(Arrays.asList(discovered));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			names.add("p" + i);
			names.add("a" + i);
		}
		return names;
	}

	private void checkReferences(SpelNode node, String text, String description, List<String> allowed) {
		if (node instanceof VariableReference) {
			String variable = node.toStringAST().substring(1);
			if (!allowed.contains(variable)) {
				throw new IllegalStateException("@DistributedLock on " + description + ": key '" + text
						+ "' refers to unknown parameter '#" + variable + "'; known are " + allowed.subList(2, allowed.size()));
			}
		}
		if (node instanceof BeanReference && this.beanFactory != null) {
			String bean = node.toStringAST().substring(1).replace("'", "");
			if (!this.beanFactory.containsBean(bean)) {
				throw new IllegalStateException(
						"@DistributedLock on " + description + ": key '" + text + "' refers to unknown bean '@" + bean + "'");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), text, description, allowed);
		}
	}

	private @Nullable Duration duration(String text, String attribute, String description,
			@Nullable Duration fallback) {
		String resolved = resolve(text, attribute, description).trim();
		if (resolved.isEmpty()) {
			return fallback;
		}
		try {
			return Durations.parse(resolved);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"@DistributedLock on " + description + ": " + attribute + " " + ex.getMessage(), ex);
		}
	}

	private static @Nullable Duration positive(@Nullable Duration duration, String attribute, String description) {
		if (duration != null && duration.isZero()) {
			throw new IllegalStateException("@DistributedLock on " + description + ": " + attribute
					+ " must be positive; leave it empty to have the watchdog renew the lock");
		}
		return duration;
	}

	private String resolve(String text, String attribute, String description) {
		if (!(this.beanFactory instanceof ConfigurableBeanFactory configurable)) {
			return text;
		}
		try {
			String resolved = configurable.resolveEmbeddedValue(text);
			return (resolved != null) ? resolved : text;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"@DistributedLock on " + description + ": " + attribute + " '" + text + "': " + ex.getMessage(), ex);
		}
	}

}
