package dev.baton.lock.annotation;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.baton.internal.BatonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Releases the locks of a method's asynchronous result once it completes, on threads of its own:
 * never on the thread that completed the result, which is often an event loop (Lettuce's among
 * them: a release that waits for Redis there could wait for itself). A release failure after a
 * successful result is logged and leaves the result as it is (the lock manager retries the
 * release); after a failed result it is added to that failure as suppressed.
 */
final class AsyncRelease {

	private static final Log logger = LogFactory.getLog(AsyncRelease.class);

	private final ExecutorService executor = BatonThreads.PLATFORM.cached("baton-lock-release", Duration.ofMinutes(1));

	/**
	 * Releases when a stage of a type the caller chose completes.
	 * @param release releases the locks, adding its failures to the given one, or throwing them
	 */
	void after(CompletionStage<?> stage, Consumer<@Nullable Throwable> release) {
		stage.whenCompleteAsync((value, failure) -> releaseQuietly(release, failure), this.executor);
	}

	/**
	 * The future to give the caller instead of {@code stage}: it completes as {@code stage} did,
	 * once the locks are released, so that the caller's continuations run unlocked. Cancelling it
	 * cancels {@code stage} where it can be cancelled, and releases the locks at once.
	 * @param release releases the locks, adding its failures to the given one, or throwing them
	 */
	CompletableFuture<Object> around(CompletionStage<?> stage, Consumer<@Nullable Throwable> release) {
		AtomicBoolean released = new AtomicBoolean();
		Consumer<@Nullable Throwable> once = (failure) -> {
			if (released.compareAndSet(false, true)) {
				releaseQuietly(release, failure);
			}
		};
		CompletableFuture<Object> result = new CompletableFuture<>();
		stage.whenCompleteAsync((value, failure) -> {
			once.accept(failure);
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		}, this.executor);
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				this.executor.execute(() -> once.accept(null));
				cancel(stage);
			}
		});
		return result;
	}

	private static void cancel(CompletionStage<?> stage) {
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			// A stage that cannot be seen as a future cannot be cancelled; its locks are released anyway.
		}
	}

	private static void releaseQuietly(Consumer<@Nullable Throwable> release, @Nullable Throwable failure) {
		try {
			release.accept(failure);
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Could not release the locks of a completed asynchronous result; its result stands and the "
					+ "release is retried until it is confirmed or the lease runs out: " + ex.getMessage());
		}
	}

}
