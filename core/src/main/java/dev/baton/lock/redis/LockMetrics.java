package dev.baton.lock.redis;

import java.util.function.IntSupplier;

/**
 * What the lock manager reports besides its observations. An interface of its own so that
 * Micrometer stays optional: only {@link MicrometerLockMetrics} refers to it. Tags are
 * {@link MetricGroups} tags.
 */
interface LockMetrics {

	/** Reports nothing. */
	LockMetrics NONE = new LockMetrics() {
	};

	default void acquired(String tag) {
	}

	default void held(String tag, long nanos) {
	}

	default void lost(String tag) {
	}

	default void releaseUnconfirmed(String tag) {
	}

	/** A write that fewer replicas acknowledged than asked for ({@code acquire}, {@code release}, ...). */
	default void unreplicated(String operation) {
	}

	default void activeLocks(IntSupplier count) {
	}

}
