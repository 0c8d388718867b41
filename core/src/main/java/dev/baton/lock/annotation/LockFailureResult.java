package dev.baton.lock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.baton.internal.ThrottledLog;
import dev.baton.lock.LockNotAcquiredException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What a locked method returns when its lock is not acquired: its fallback method's result, an
 * empty value ({@link OnLockFailure#SKIP}), or a {@link LockNotAcquiredException}.
 */
final class LockFailureResult {

	private static final Log logger = LogFactory.getLog(LockFailureResult.class);

	private static final List<Supplier<Object>> EMPTY_VALUES = List.of(Optional::empty, List::of, Set::of, Map::of,
			() -> CompletableFuture.completedFuture(null));

	private final @Nullable Method fallback;

	private final boolean skip;

	private final Supplier<@Nullable Object> emptyValue;

	private final boolean completionStage;

	private final String description;

	/** Skips are normal on all instances but one: DEBUG each, INFO at most once a minute per method. */
	private final ThrottledLog skips = ThrottledLog.infos(logger, Duration.ofMinutes(1));

	private LockFailureResult(@Nullable Method fallback, boolean skip, Supplier<@Nullable Object> emptyValue,
			boolean completionStage, String description) {
		this.fallback = fallback;
		this.skip = skip;
		this.emptyValue = emptyValue;
		this.completionStage = completionStage;
		this.description = description;
	}

	/**
	 * Resolves the failure handling of a method.
	 * @throws IllegalStateException naming the method if the fallback method does not exist or
	 * does not fit, or if SKIP has no empty value for the return type
	 */
	static LockFailureResult of(DistributedLock annotation, Method method, Class<?> targetClass, String description,
			@Nullable Supplier<Object> reactiveEmpty) {
		boolean completionStage = CompletionStage.class.isAssignableFrom(method.getReturnType());
		if (!annotation.fallbackMethod().isEmpty()) {
			return new LockFailureResult(fallback(annotation.fallbackMethod(), method, targetClass, description), false,
					() -> null, completionStage, description);
		}
		boolean skip = annotation.onFailure() == OnLockFailure.SKIP;
		Supplier<@Nullable Object> empty = () -> null;
		if (skip) {
			empty = (reactiveEmpty != null) ? reactiveEmpty::get : emptyValue(method.getReturnType(), description);
		}
		return new LockFailureResult(null, skip, empty, completionStage, description);
	}

	/**
	 * The result for an invocation whose lock was not acquired.
	 * @param failure makes the {@code LockNotAcquiredException}, asking Redis who holds the lock:
	 * called only when the exception is thrown or logged
	 * @throws Throwable the {@code LockNotAcquiredException}, or what the fallback threw
	 */
	@Nullable Object apply(Object target, @Nullable Object[] arguments, Supplier<LockNotAcquiredException> failure)
			throws Throwable {
		if (this.fallback != null) {
			try {
				return this.fallback.invoke(target, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}
		if (this.skip) {
			this.skips.log(() -> skipped(failure.get()));
			return this.emptyValue.get();
		}
		if (this.completionStage) {
			return CompletableFuture.failedFuture(failure.get());
		}
		throw failure.get();
	}

	private String skipped(LockNotAcquiredException failure) {
		return "Skipped " + this.description + " (onFailure = SKIP): " + failure.getMessage()
				+ (failure.getHolder().isPresent() ? "" : ", most likely because another instance holds it");
	}

	private static Method fallback(String name, Method method, Class<?> targetClass, String description) {
		Method fallback = ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
		if (fallback == null) {
			throw new IllegalStateException("@DistributedLock on " + description + ": fallbackMethod '" + name
					+ "' not found; it must be a method of " + targetClass.getSimpleName() + " with parameters ("
					+ LockedMethods.parameterTypes(method) + ")");
		}
		if (!ClassUtils.isAssignable(method.getReturnType(), fallback.getReturnType())) {
			throw new IllegalStateException("@DistributedLock on " + description + ": fallbackMethod '" + name
					+ "' returns " + fallback.getReturnType().getName() + ", not " + method.getReturnType().getName());
		}
		ReflectionUtils.makeAccessible(fallback);
		return fallback;
	}

	private static Supplier<@Nullable Object> emptyValue(Class<?> type, String description) {
		if (type == void.class || type == Void.class) {
			return () -> null;
		}
		if (type.isPrimitive()) {
			throw new IllegalStateException("@DistributedLock(onFailure = SKIP) on " + description + " returns "
					+ type.getName() + ", which has no empty value: return an Optional or a wrapper type, "
					+ "or name a fallbackMethod");
		}
		for (Supplier<Object> candidate : EMPTY_VALUES) {
			if (type.isInstance(candidate.get())) {
				return candidate::get;
			}
		}
		return () -> null;
	}

}
