package dev.baton.lock.annotation;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.lock.LockLease;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Locking around Reactor results: the locks are taken when the result is subscribed to (on a
 * thread that may block) and released when it terminates or is cancelled. Kept apart so that
 * Reactor stays optional.
 */
final class ReactiveLocking {

	private ReactiveLocking() {
	}

	static boolean isPublisher(Class<?> type) {
		return Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
	}

	static Supplier<Object> emptyValue(Class<?> type) {
		return Mono.class.isAssignableFrom(type) ? Mono::empty : Flux::empty;
	}

	/**
	 * Wraps the method's result.
	 * @param acquire takes the locks, blocking; empty when they were not acquired
	 * @param release releases what {@code acquire} took
	 * @param onFailure the result when the locks were not acquired
	 */
	static Object lock(Object result, Callable<Optional<List<LockLease>>> acquire,
			Consumer<List<LockLease>> release, Callable<@Nullable Object> onFailure) {
		Mono<Optional<List<LockLease>>> acquired = Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic());
		Function<List<LockLease>, Mono<Void>> cleanup = (leases) -> Mono.fromRunnable(() -> release.accept(leases));
		if (result instanceof Mono<?> mono) {
			return acquired.flatMap((leases) -> leases
				.<Mono<?>>map((held) -> Mono.usingWhen(Mono.just(held), (ignored) -> mono, cleanup))
				.orElseGet(() -> Mono.defer(() -> (Mono<?>) call(onFailure))));
		}
		Flux<?> flux = Flux.from((Publisher<?>) result);
		return acquired.flatMapMany((leases) -> leases
			.<Flux<?>>map((held) -> Flux.usingWhen(Mono.just(held), (ignored) -> flux, cleanup))
			.orElseGet(() -> Flux.defer(() -> (Publisher<?>) call(onFailure))));
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
