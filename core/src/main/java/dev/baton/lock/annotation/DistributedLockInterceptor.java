package dev.baton.lock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.baton.internal.Durations;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/** Runs a {@code @DistributedLock} method while holding its locks. */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockedMethods methods;

	private final Supplier<LockManager> lockManager;

	private final ReentrantHolds reentrantHolds = new ReentrantHolds();

	private final AsyncRelease asyncRelease = new AsyncRelease();

	DistributedLockInterceptor(LockedMethods methods, Supplier<LockManager> lockManager) {
		this.methods = methods;
		this.lockManager = lockManager;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		LockedMethod locked = (target != null)
				? this.methods.find(invocation.getMethod(), AopUtils.getTargetClass(target)) : null;
		if (locked == null) {
			return invocation.proceed();
		}
		@Nullable Object[] arguments = invocation.getArguments();
		SortedSet<String> names = locked.lockNames(arguments, this.methods.maxKeys());
		return switch (locked.returnKind()) {
			case DIRECT -> invokeDirect(invocation, locked, names, target);
			case COMPLETION_STAGE -> invokeAsync(invocation, locked, names, target);
			case PUBLISHER -> ReactiveLocking.lock(locked.method().getReturnType(), () -> proceedOnce(invocation),
					() -> acquireAll(locked, names).leases(), (leases) -> releaseAll(locked, leases, null),
					() -> failure(locked, names, target, arguments));
		};
	}

	/** Proceeds on a copy of the invocation, so that each subscription to a Reactor result runs the method once. */
	private static @Nullable Object proceedOnce(MethodInvocation invocation) throws Throwable {
		return (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone().proceed()
				: invocation.proceed();
	}

	/** Runs a method on the caller's thread: locks this thread already holds are re-entered, not taken again. */
	private @Nullable Object invokeDirect(MethodInvocation invocation, LockedMethod locked, SortedSet<String> names,
			Object target) throws Throwable {
		Acquired acquired = acquireAll(locked, this.reentrantHolds.notHeld(names));
		if (acquired.leases().isEmpty()) {
			return locked.onFailure().apply(target, invocation.getArguments(), notAcquired(locked, acquired.missed()));
		}
		List<LockLease> leases = acquired.leases().get();
		this.reentrantHolds.taken(leases);
		Throwable failure = null;
		try {
			return invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			this.reentrantHolds.released(leases);
			releaseAll(locked, leases, failure);
		}
	}

	private @Nullable Object invokeAsync(MethodInvocation invocation, LockedMethod locked, SortedSet<String> names,
			Object target) throws Throwable {
		Acquired acquired = acquireAll(locked, names);
		if (acquired.leases().isEmpty()) {
			return locked.onFailure().apply(target, invocation.getArguments(), notAcquired(locked, acquired.missed()));
		}
		List<LockLease> leases = acquired.leases().get();
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			releaseAll(locked, leases, ex);
			throw ex;
		}
		if (!(result instanceof CompletionStage<?> stage)) {
			releaseAll(locked, leases, null);
			return result;
		}
		if (!locked.method().getReturnType().isAssignableFrom(CompletableFuture.class)) {
			// A stage type of its own cannot be replaced: the locks are released when it completes.
			this.asyncRelease.after(stage, (failure) -> releaseAll(locked, leases, failure));
			return result;
		}
		// The caller's continuations run only once the locks are released.
		return this.asyncRelease.around(stage, (failure) -> releaseAll(locked, leases, failure));
	}

	private @Nullable Object failure(LockedMethod locked, SortedSet<String> names, Object target,
			@Nullable Object[] arguments) throws Exception {
		try {
			return locked.onFailure().apply(target, arguments, notAcquired(locked, names.first()));
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Takes every lock, in order, within one wait time; all or none. Whatever ends the attempt
	 * early (a lock not acquired, a Redis failure, an interrupt) releases the locks already taken.
	 */
	private Acquired acquireAll(LockedMethod locked, SortedSet<String> names) {
		LockManager manager = this.lockManager.get();
		for (String name : names) {
			// Validates the name without a Redis call: no lock is taken for a key with a bad element.
			manager.getLock(name, locked.name());
		}
		long deadline = System.nanoTime() + Durations.toNanosSaturated(locked.waitTime());
		List<LockLease> leases = new ArrayList<>(names.size());
		try {
			for (String name : names) {
				Duration wait = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0));
				LockRequest request = LockRequest.of(name)
					.group(locked.name())
					.waitTime(wait)
					.leaseTime(locked.leaseTime())
					.build();
				Optional<LockLease> lease = manager.tryAcquire(request);
				if (lease.isEmpty()) {
					releaseEach(leases, LockLease::release, null);
					return new Acquired(Optional.empty(), name);
				}
				leases.add(lease.get());
			}
		}
		catch (RuntimeException | Error ex) {
			releaseEach(leases, LockLease::release, ex);
			throw ex;
		}
		return new Acquired(Optional.of(leases), null);
	}

	/**
	 * Releases every lease, keeping each for {@code lockAtLeastFor} if the method says so.
	 * @param primary what the call already failed with, or {@code null}; a release failure is
	 * added to it, or else thrown
	 */
	private static void releaseAll(LockedMethod locked, List<LockLease> leases, @Nullable Throwable primary) {
		Duration lockAtLeastFor = locked.lockAtLeastFor();
		releaseEach(leases, (lease) -> {
			if (lockAtLeastFor != null) {
				lease.release(lockAtLeastFor);
			}
			else {
				lease.release();
			}
		}, primary);
	}

	/**
	 * Releases every lease, the last taken first, each whatever the others did.
	 * @param primary the failure already under way, which collects the release failures; when
	 * {@code null}, the first release failure is thrown after every lease was tried
	 */
	private static void releaseEach(List<LockLease> leases, Consumer<LockLease> release,
			@Nullable Throwable primary) {
		Throwable first = null;
		for (int i = leases.size() - 1; i >= 0; i--) {
			try {
				release.accept(leases.get(i));
			}
			catch (RuntimeException | Error ex) {
				if (primary != null) {
					primary.addSuppressed(ex);
				}
				else if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (first instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (first instanceof Error error) {
			throw error;
		}
	}

	/**
	 * The failure of a lock not acquired, made only if it is used: it asks Redis who holds the
	 * lock, which a fallback never needs and a skip only when it is logged.
	 */
	private Supplier<LockNotAcquiredException> notAcquired(LockedMethod locked, @Nullable String missed) {
		String name = (missed != null) ? missed : locked.name();
		return () -> new LockNotAcquiredException(name, locked.waitTime(), this.lockManager.get().holderOf(name));
	}

	/** The leases taken, or the name of the lock that was not acquired. */
	private record Acquired(Optional<List<LockLease>> leases, @Nullable String missed) {

	}

}
