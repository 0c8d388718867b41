package dev.baton.lock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/** Runs a {@code @DistributedLock} method while holding its locks. */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockedMethods methods;

	private final Supplier<LockManager> lockManager;

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
		SortedSet<String> names = locked.lockNames(arguments);
		return switch (locked.returnKind()) {
			case DIRECT -> invokeDirect(invocation, locked, names, target);
			case COMPLETION_STAGE -> invokeAsync(invocation, locked, names, target);
			case PUBLISHER -> ReactiveLocking.lock(invocation.proceed(), () -> acquireAll(locked, names).leases(),
					(leases) -> releaseAll(locked, leases),
					() -> failure(locked, names, target, arguments));
		};
	}

	private @Nullable Object invokeDirect(MethodInvocation invocation, LockedMethod locked, SortedSet<String> names,
			Object target) throws Throwable {
		Acquired acquired = acquireAll(locked, names);
		if (acquired.leases().isEmpty()) {
			return locked.onFailure().apply(target, invocation.getArguments(), acquired.failure(locked));
		}
		try {
			return invocation.proceed();
		}
		finally {
			releaseAll(locked, acquired.leases().get());
		}
	}

	private @Nullable Object invokeAsync(MethodInvocation invocation, LockedMethod locked, SortedSet<String> names,
			Object target) throws Throwable {
		Acquired acquired = acquireAll(locked, names);
		if (acquired.leases().isEmpty()) {
			return locked.onFailure().apply(target, invocation.getArguments(), acquired.failure(locked));
		}
		List<LockLease> leases = acquired.leases().get();
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			releaseAll(locked, leases);
			throw ex;
		}
		if (result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> releaseAll(locked, leases));
		}
		else {
			releaseAll(locked, leases);
		}
		return result;
	}

	private @Nullable Object failure(LockedMethod locked, SortedSet<String> names, Object target,
			@Nullable Object[] arguments) throws Exception {
		try {
			return locked.onFailure()
				.apply(target, arguments, new LockNotAcquiredException(names.first(), locked.waitTime()));
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Takes every lock, in order, within one wait time; all or none. */
	private Acquired acquireAll(LockedMethod locked, SortedSet<String> names) {
		LockManager manager = this.lockManager.get();
		long deadline = System.nanoTime() + locked.waitTime().toNanos();
		List<LockLease> leases = new ArrayList<>(names.size());
		for (String name : names) {
			Duration wait = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0));
			LockRequest request = LockRequest.of(name)
				.group(locked.name())
				.waitTime(wait)
				.leaseTime(locked.leaseTime())
				.build();
			Optional<LockLease> lease = manager.tryAcquire(request);
			if (lease.isEmpty()) {
				leases.forEach(LockLease::release);
				return new Acquired(Optional.empty(), name);
			}
			leases.add(lease.get());
		}
		return new Acquired(Optional.of(leases), null);
	}

	private static void releaseAll(LockedMethod locked, List<LockLease> leases) {
		Duration lockAtLeastFor = locked.lockAtLeastFor();
		for (int i = leases.size() - 1; i >= 0; i--) {
			if (lockAtLeastFor != null) {
				leases.get(i).release(lockAtLeastFor);
			}
			else {
				leases.get(i).release();
			}
		}
	}

	/** The leases taken, or the name of the lock that was not acquired. */
	private record Acquired(Optional<List<LockLease>> leases, @Nullable String missed) {

		LockNotAcquiredException failure(LockedMethod locked) {
			return new LockNotAcquiredException((this.missed != null) ? this.missed : locked.name(), locked.waitTime());
		}

	}

}
