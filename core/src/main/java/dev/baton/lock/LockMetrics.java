package dev.baton.lock;

import java.util.function.IntSupplier;

/**
 * What the lock manager reports. An interface of its own so that Micrometer stays optional: only
 * {@link MicrometerLockMetrics} refers to it.
 */
interface LockMetrics {

	/** Reports nothing. */
	LockMetrics NONE = new LockMetrics() {
	};

	/** Outcome tag values of {@code baton.lock.acquire}. */
	enum Outcome {

		ACQUIRED, TIMEOUT, ERROR

	}

	default void acquisition(String group, Outcome outcome, long nanos) {
	}

	default void held(String group, long nanos) {
	}

	default void lost(String group) {
	}

	default void activeLocks(IntSupplier count) {
	}

}
