package dev.baton.lock.annotation;

import java.time.Duration;

import dev.baton.lock.LockManager;

/** Locked methods of every visibility a Spring proxy can intercept; each reports whether its lock was held. */
public class VisibleMethods {

	@DistributedLock(name = "public")
	public boolean publicMethod(LockManager locks) {
		return held(locks, "public");
	}

	@DistributedLock(name = "protected")
	protected boolean protectedMethod(LockManager locks) {
		return held(locks, "protected");
	}

	@DistributedLock(name = "package-private")
	boolean packagePrivateMethod(LockManager locks) {
		return held(locks, "package-private");
	}

	static boolean held(LockManager locks, String name) {
		return locks.tryAcquire(name, Duration.ZERO).map((lease) -> {
			lease.release();
			return false;
		}).orElse(true);
	}

}
