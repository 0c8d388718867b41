package dev.baton.internal;

import java.time.Duration;
import java.time.Instant;

import dev.baton.internal.Names;
import dev.baton.queue.DelayQueue;
import org.jspecify.annotations.Nullable;

/**
 * Checks the arguments of {@link DelayQueue} calls before anything is written, with messages
 * that name the problem: one set of rules for every implementation (Redis, in memory).
 */
public final class QueueInput {

	/** The longest task id, and queue name, accepted. */
	public static final int MAX_ID_LENGTH = 256;

	private QueueInput() {
	}

	public static String queueName(@Nullable String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Queue name must not be blank");
		}
		if (name.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException(
					"Queue name must be at most " + MAX_ID_LENGTH + " characters, was " + name.length());
		}
		Names.requireNoControlCharacters("Queue name", name);
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException(
					"Queue name '" + name + "' must not contain '{' or '}' (they delimit the Redis hash tag)");
		}
		return name;
	}

	public static String id(@Nullable String id) {
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("Task id must not be blank");
		}
		if (id.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException(
					"Task id must be at most " + MAX_ID_LENGTH + " characters, was " + id.length());
		}
		Names.requireNoControlCharacters("Task id", id);
		int lone = loneSurrogate(id);
		if (lone >= 0) {
			// Encoded as UTF-8, a lone surrogate becomes '?': distinct ids would name one task.
			throw new IllegalArgumentException("Task id must be well-formed UTF-16, but has a lone surrogate at index "
					+ lone + ": " + id.codePoints().limit(64).mapToObj(Integer::toHexString).toList());
		}
		return id;
	}

	/** The index of the first surrogate without its pair, or -1. */
	private static int loneSurrogate(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/** The longest dead-letter reason stored; a stack of nested causes can run to hundreds of kilobytes. */
	public static final int MAX_REASON_LENGTH = 4096;

	/** A dead-letter reason as stored: cut to {@value #MAX_REASON_LENGTH} characters, saying so. */
	public static String reason(String reason) {
		if (reason.length() <= MAX_REASON_LENGTH) {
			return reason;
		}
		int end = MAX_REASON_LENGTH;
		if (Character.isHighSurrogate(reason.charAt(end - 1))) {
			end--;
		}
		return reason.substring(0, end) + "... (cut, " + reason.length() + " characters)";
	}

	public static <T> T payload(@Nullable T payload) {
		if (payload == null) {
			throw new IllegalArgumentException("Payload must not be null");
		}
		return payload;
	}

	public static long delayMillis(@Nullable Duration delay) {
		if (delay == null || delay.isNegative()) {
			throw new IllegalArgumentException("Delay must not be null or negative, was " + delay);
		}
		if (delay.compareTo(DelayQueue.MAX_DELAY) > 0) {
			throw new IllegalArgumentException("Delay must be at most " + DelayQueue.MAX_DELAY.toDays()
					+ " days (DelayQueue.MAX_DELAY), was " + delay);
		}
		return delay.toMillis();
	}

	public static long dueAtMillis(@Nullable Instant dueAt) {
		if (dueAt == null) {
			throw new IllegalArgumentException("Due time must not be null");
		}
		if (dueAt.isAfter(DelayQueue.MAX_DUE_AT)) {
			throw new IllegalArgumentException(
					"Due time must be at most " + DelayQueue.MAX_DUE_AT + " (DelayQueue.MAX_DUE_AT), was " + dueAt);
		}
		// Before 1970 is as due as 1970, and keeps every stored time a non-negative integer.
		return dueAt.isBefore(Instant.EPOCH) ? 0 : dueAt.toEpochMilli();
	}

	public static long timeoutMillis(@Nullable Duration timeout) {
		if (timeout == null || timeout.toMillis() < 1) {
			throw new IllegalArgumentException(
					"Visibility timeout must be at least 1ms (Redis keeps it in milliseconds), was " + timeout);
		}
		if (timeout.compareTo(DelayQueue.MAX_VISIBILITY_TIMEOUT) > 0) {
			throw new IllegalArgumentException("Visibility timeout must be at most "
					+ DelayQueue.MAX_VISIBILITY_TIMEOUT.toHours() + "h (DelayQueue.MAX_VISIBILITY_TIMEOUT), was " + timeout);
		}
		return timeout.toMillis();
	}

	public static int max(int max) {
		if (max <= 0) {
			throw new IllegalArgumentException("Maximum number of tasks must be positive, was " + max);
		}
		return max;
	}

	/** The limit of a read that returns payloads ({@code peek}, {@code deadLetters}). */
	public static int readMax(int max) {
		if (max(max) > DelayQueue.MAX_PEEK) {
			throw new IllegalArgumentException("Maximum number of tasks to read must be at most " + DelayQueue.MAX_PEEK
					+ " (DelayQueue.MAX_PEEK), was " + max);
		}
		return max;
	}

}
