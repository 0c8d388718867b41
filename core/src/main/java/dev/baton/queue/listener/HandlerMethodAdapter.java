package dev.baton.queue.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import dev.baton.queue.TaskContext;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Invokes a handler method with the payload and, where the method declares one, the
 * {@link TaskContext}; exceptions thrown by the method come out unwrapped. A handler that returns
 * a {@link CompletionStage} (or a Reactor {@code Mono}, when Reactor is present) is done when
 * that completes: the invocation waits for it, and its failure comes out as if thrown. Any other
 * return value is ignored.
 */
final class HandlerMethodAdapter {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
			HandlerMethodAdapter.class.getClassLoader());

	private final Object bean;

	private final Method method;

	private final boolean[] contextParameters;

	HandlerMethodAdapter(Object bean, Method method) {
		this.bean = bean;
		this.method = method;
		Class<?>[] types = method.getParameterTypes();
		this.contextParameters = new boolean[types.length];
		for (int i = 0; i < types.length; i++) {
			this.contextParameters[i] = TaskContext.class.equals(types[i]);
		}
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Invoke the handler and wait for its asynchronous result, if it returns one.
	 * @throws InterruptedException if interrupted while waiting for an asynchronous result
	 */
	void invoke(Object payload, TaskContext context) throws Exception {
		Object[] arguments = new Object[this.contextParameters.length];
		for (int i = 0; i < arguments.length; i++) {
			arguments[i] = this.contextParameters[i] ? context : payload;
		}
		Object result;
		try {
			result = this.method.invoke(this.bean, arguments);
		}
		catch (InvocationTargetException ex) {
			throw unwrap(ex.getTargetException(), ex);
		}
		CompletableFuture<?> completion = completion(result);
		if (completion != null) {
			try {
				completion.get();
			}
			catch (ExecutionException | CompletionException ex) {
				throw unwrap(ex.getCause(), ex);
			}
		}
	}

	private static @Nullable CompletableFuture<?> completion(@Nullable Object result) {
		if (result instanceof CompletionStage<?> stage) {
			return stage.toCompletableFuture();
		}
		if (reactorPresent) {
			return ReactorResults.completion(result);
		}
		return null;
	}

	private static Exception unwrap(@Nullable Throwable cause, Exception wrapper) {
		if (cause instanceof Exception exception) {
			return exception;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return wrapper;
	}

	/** Touches Reactor types only when Reactor is on the class path. */
	private static final class ReactorResults {

		static @Nullable CompletableFuture<?> completion(@Nullable Object result) {
			return (result instanceof Mono<?> mono) ? mono.toFuture() : null;
		}

	}

}
