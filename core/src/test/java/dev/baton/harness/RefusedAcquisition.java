package dev.baton.harness;

import org.jspecify.annotations.Nullable;

/**
 * An acquisition that Baton answered with "not acquired" (tryLock false, tryAcquire empty, a
 * {@code @DistributedLock} method not run), and what the lock's key held right after.
 *
 * @param use the refused call
 * @param manager the lock manager the caller asked
 * @param atMillis when the key was read, ms from the run's start
 * @param readEndMillis when the read returned
 * @param found the owner id the key held, or {@code null} if there was no key
 */
record RefusedAcquisition(LockUse use, Object manager, long atMillis, long readEndMillis, @Nullable String found) {

	String name() {
		return this.use.name;
	}

}
