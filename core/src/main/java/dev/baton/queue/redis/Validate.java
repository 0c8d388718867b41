package dev.baton.queue.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Checks arguments before anything is written, with messages that name the problem.
 */
final class Validate {

	static final int MAX_ID_LENGTH = 256;

	private Validate() {
	}

	static String queueName(@Nullable String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Queue name must not be blank");
		}
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException(
					"Queue name '" + name + "' must not contain '{' or '}' (they delimit the Redis hash tag)");
		}
		return name;
	}

	static String id(@Nullable String id) {
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("Task id must not be blank");
		}
		if (id.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException(
					"Task id must be at most " + MAX_ID_LENGTH + " characters, was " + id.length());
		}
		return id;
	}

	static <T> T payload(@Nullable T payload) {
		if (payload == null) {
			throw new IllegalArgumentException("Payload must not be null");
		}
		return payload;
	}

	static String delayMillis(@Nullable Duration delay) {
		if (delay == null || delay.isNegative()) {
			throw new IllegalArgumentException("Delay must not be null or negative, was " + delay);
		}
		return Long.toString(delay.toMillis());
	}

	static String timeoutMillis(@Nullable Duration timeout) {
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("Visibility timeout must be positive, was " + timeout);
		}
		return Long.toString(timeout.toMillis());
	}

	static int max(int max) {
		if (max <= 0) {
			throw new IllegalArgumentException("Maximum number of tasks must be positive, was " + max);
		}
		return max;
	}

}
