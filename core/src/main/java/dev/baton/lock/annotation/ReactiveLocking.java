package dev.baton.lock.annotation;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.lock.LockLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Locking around Reactor results: the locks are taken when the result is subscribed to (on a
 * thread that may block), the method runs, and the locks are released when its result terminates
 * or is cancelled. Kept apart so that Reactor stays optional.
 */
final class ReactiveLocking {

	private static final Log logger = LogFactory.getLog(ReactiveLocking.class);

	private ReactiveLocking() {
	}

	static boolean isPublisher(Class<?> type) {
		return Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
	}

	static Supplier<Object> emptyValue(Class<?> type) {
		return Mono.class.isAssignableFrom(type) ? Mono::empty : Flux::empty;
	}

	/**
	 * The locked result of a method that returns a {@code Mono} or {@code Flux}. Each subscription
	 * takes the locks, then runs the method (so that the code that builds the result runs locked
	 * too), then subscribes to its result and releases the locks when that terminates or is
	 * cancelled. A subscriber that cancels while the locks are being taken leaves nothing held:
	 * locks that arrive after the cancel are released at once.
	 * @param returnType the method's return type, {@code Mono} or {@code Flux}
	 * @param body runs the method
	 * @param acquire takes the locks, blocking; empty when they were not acquired
	 * @param release releases what {@code acquire} took
	 * @param onFailure the result when the locks were not acquired
	 */
	static Object lock(Class<?> returnType, Body body, Callable<Optional<List<LockLease>>> acquire,
			Consumer<List<LockLease>> release, Callable<@Nullable Object> onFailure) {
		// Off the thread that terminated the result (often an event loop), and never replacing its outcome.
		Function<List<LockLease>, Mono<Void>> cleanup = (leases) -> Mono.<Void>fromRunnable(() -> release.accept(leases))
			.subscribeOn(Schedulers.boundedElastic())
			.onErrorResume((ex) -> {
				logger.warn("Could not release the locks of a terminated reactive result; its outcome stands and the "
						+ "release is retried until it is confirmed or the lease runs out: " + ex.getMessage());
				return Mono.empty();
			});
		if (Mono.class.isAssignableFrom(returnType)) {
			return Mono.defer(() -> {
				Handover handover = new Handover(release);
				return acquired(acquire, handover).flatMap((leases) -> leases
					.<Mono<?>>map((held) -> handover.take(held)
							? Mono.usingWhen(Mono.just(held), (ignored) -> Mono.from(result(body)), cleanup)
							: Mono.empty())
					.orElseGet(() -> Mono.defer(() -> (Mono<?>) call(onFailure))));
			});
		}
		return Flux.defer(() -> {
			Handover handover = new Handover(release);
			return acquired(acquire, handover).flatMapMany((leases) -> leases
				.<Flux<?>>map((held) -> handover.take(held)
						? Flux.usingWhen(Mono.just(held), (ignored) -> result(body), cleanup) : Flux.empty())
				.orElseGet(() -> Flux.defer(() -> (Publisher<?>) call(onFailure))));
		});
	}

	private static Mono<Optional<List<LockLease>>> acquired(Callable<Optional<List<LockLease>>> acquire,
			Handover handover) {
		return Mono.fromCallable(() -> {
			Optional<List<LockLease>> leases = acquire.call();
			leases.ifPresent(handover::offer);
			return leases;
		}).subscribeOn(Schedulers.boundedElastic()).doOnCancel(handover::cancel);
	}

	private static Publisher<?> result(Body body) {
		try {
			Object result = body.run();
			return (result != null) ? (Publisher<?>) result : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/** Runs the locked method. */
	@FunctionalInterface
	interface Body {

		@Nullable Object run() throws Throwable;

	}

	/**
	 * Passes the leases from the thread that took them to the locked section, or releases them
	 * when the subscriber cancelled in between.
	 */
	private static final class Handover {

		private static final Object TAKEN = new Object();

		private static final Object CANCELLED = new Object();

		private final AtomicReference<@Nullable Object> slot = new AtomicReference<>();

		private final Consumer<List<LockLease>> release;

		Handover(Consumer<List<LockLease>> release) {
			this.release = release;
		}

		void offer(List<LockLease> leases) {
			if (!this.slot.compareAndSet(null, leases)) {
				this.release.accept(leases);
			}
		}

		boolean take(List<LockLease> leases) {
			return this.slot.compareAndSet(leases, TAKEN);
		}

		@SuppressWarnings("unchecked")
		void cancel() {
			if (this.slot.getAndSet(CANCELLED) instanceof List<?> leases) {
				this.release.accept((List<LockLease>) leases);
			}
		}

	}

	private static @Nullable Object call(Callable<@Nullable Object> callable) {
		try {
			return callable.call();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
