package dev.baton.queue.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import dev.baton.queue.TaskContext;

import org.springframework.util.ReflectionUtils;

/**
 * Invokes a handler method with the payload and, where the method declares one, the
 * {@link TaskContext}, and waits for the work its return value stands for
 * ({@link HandlerResults}); exceptions thrown by the method or its result come out unwrapped.
 */
final class HandlerMethodAdapter {

	private final Object bean;

	private final Method method;

	private final boolean[] contextParameters;

	private final HandlerResults.Awaiter results;

	/**
	 * @throws IllegalStateException naming the method if Baton cannot wait for its return type
	 */
	HandlerMethodAdapter(Object bean, Method method) {
		this.bean = bean;
		this.method = method;
		this.results = HandlerResults.awaiter(method);
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
			Throwable cause = ex.getTargetException();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
		if (result != null) {
			this.results.await(result);
		}
	}

}
