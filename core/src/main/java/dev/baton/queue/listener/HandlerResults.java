package dev.baton.queue.listener;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Waits for the work a handler's return value stands for, so that a task is acknowledged only
 * once that work is done: a {@link CompletionStage} or {@link Future} until it completes, a
 * Reactive Streams {@code Publisher} (or any type Spring's {@link ReactiveAdapterRegistry} adapts:
 * Reactor, RxJava, Kotlin {@code Flow} with {@code kotlinx-coroutines-reactor}, ...) subscribed to
 * until it completes, its items dropped. A failure comes out as if the handler threw it. Any other
 * return type is refused at start-up: a result Baton cannot wait for would be acknowledged before
 * its work ran, or without it ever running (a cold publisher).
 */
final class HandlerResults {

	private static final boolean reactiveStreamsPresent = ClassUtils.isPresent("org.reactivestreams.Publisher",
			HandlerResults.class.getClassLoader());

	/** Waits for one kind of result; {@code null} results stand for no work. */
	@FunctionalInterface
	interface Awaiter {

		/**
		 * Wait until the work is done.
		 * @throws InterruptedException if interrupted while waiting; the work is cancelled then
		 * @throws Exception the work's failure, unwrapped
		 */
		void await(Object result) throws Exception;

	}

	private HandlerResults() {
	}

	/**
	 * How to wait for what the method returns.
	 * @param method a handler method
	 * @return the awaiter for its return type
	 * @throws IllegalStateException naming the method if Baton cannot wait for its return type
	 */
	static Awaiter awaiter(Method method) {
		Class<?> type = method.getReturnType();
		if (type == void.class || type == Void.class) {
			return (result) -> {
			};
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			return (result) -> await(((CompletionStage<?>) result).toCompletableFuture());
		}
		if (Future.class.isAssignableFrom(type)) {
			return (result) -> await((Future<?>) result);
		}
		Awaiter publisher = reactiveStreamsPresent ? Publishers.awaiter(type) : null;
		if (publisher == null) {
			throw new IllegalStateException("@DelayedTask method " + method.getDeclaringClass().getName() + "."
					+ method.getName() + " returns " + type.getName() + ", which Baton cannot wait for: its task "
					+ "would be acknowledged before that work is done. Return void, a CompletionStage, a Future "
					+ "or a reactive type Spring's ReactiveAdapterRegistry adapts (a Reactive Streams Publisher, "
					+ "Reactor, RxJava, ...): the task is acknowledged once it completes.");
		}
		return publisher;
	}

	private static void await(Future<?> future) throws Exception {
		try {
			future.get();
		}
		catch (InterruptedException ex) {
			// Stopping gave up on the handler: its work is not wanted any more
			future.cancel(true);
			throw ex;
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	/** Touches Reactive Streams types only when they are on the class path. */
	private static final class Publishers {

		static @Nullable Awaiter awaiter(Class<?> type) {
			ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
			if (adapter == null) {
				return null;
			}
			return (result) -> {
				Completion completion = new Completion();
				adapter.toPublisher(result).subscribe(completion);
				await(completion);
			};
		}

	}

	/** Completes when the publisher does; cancelling it cancels the subscription. */
	private static final class Completion extends CompletableFuture<Void> implements Subscriber<Object> {

		private volatile @Nullable Subscription subscription;

		@Override
		public void onSubscribe(Subscription subscription) {
			this.subscription = subscription;
			if (isCancelled()) {
				subscription.cancel();
			}
			else {
				subscription.request(Long.MAX_VALUE);
			}
		}

		@Override
		public void onNext(Object item) {
			// The items are the handler's business: only completion counts
		}

		@Override
		public void onError(Throwable failure) {
			completeExceptionally(failure);
		}

		@Override
		public void onComplete() {
			complete(null);
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			Subscription subscription = this.subscription;
			if (subscription != null) {
				subscription.cancel();
			}
			return cancelled;
		}

	}

}
