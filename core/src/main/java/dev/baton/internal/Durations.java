package dev.baton.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations written in annotation attributes: a number with a unit ({@code "500ms"},
 * {@code "30s"}, {@code "5m"}, {@code "2h"}, {@code "1d"}; also {@code ns} and {@code us}), ISO-8601
 * ({@code "PT30S"}) or {@code "0"}. Any other bare number is rejected rather than guessed at.
 * Callers decide whether zero or negative (ISO-8601) durations make sense.
 */
public final class Durations {

	private static final Pattern SIMPLE = Pattern.compile("^\\s*(\\d+)\\s*(ns|us|ms|s|m|h|d)?\\s*$",
			Pattern.CASE_INSENSITIVE);

	/** The longest duration a {@code long} of nanoseconds holds. */
	private static final Duration LONGEST_IN_NANOS = Duration.ofNanos(Long.MAX_VALUE);

	private Durations() {
	}

	/**
	 * A duration as people write it in properties and annotations: {@code 500ms}, {@code 30s},
	 * {@code 5m}, {@code 1h}, {@code 2d}, the largest unit that divides it; fractions as
	 * milliseconds ({@code 1500ms}). For log lines, where {@code PT1S} reads badly.
	 * @param duration a duration
	 * @return the text
	 */
	public static String readable(Duration duration) {
		long millis = duration.toMillis();
		if (millis != 0 && millis % 86_400_000 == 0) {
			return (millis / 86_400_000) + "d";
		}
		if (millis != 0 && millis % 3_600_000 == 0) {
			return (millis / 3_600_000) + "h";
		}
		if (millis != 0 && millis % 60_000 == 0) {
			return (millis / 60_000) + "m";
		}
		if (millis != 0 && millis % 1000 == 0) {
			return (millis / 1000) + "s";
		}
		return millis + "ms";
	}

	/**
	 * A duration in nanoseconds, {@link Long#MAX_VALUE} for one too long to count in them, which
	 * callers read as "for ever".
	 * @param duration a duration, not negative
	 * @return its nanoseconds, saturated
	 */
	public static long toNanosSaturated(Duration duration) {
		return (duration.compareTo(LONGEST_IN_NANOS) >= 0) ? Long.MAX_VALUE : duration.toNanos();
	}

	/**
	 * Parse a duration.
	 * @param text the text to parse
	 * @return the duration
	 * @throws IllegalArgumentException if the text is not a duration
	 */
	public static Duration parse(String text) {
		Matcher matcher = SIMPLE.matcher(text);
		if (matcher.matches()) {
			long amount = Long.parseLong(matcher.group(1));
			String unit = matcher.group(2);
			if (unit == null) {
				if (amount == 0) {
					return Duration.ZERO;
				}
				throw new IllegalArgumentException("'" + text + "' has no unit; write e.g. '" + amount + "ms' or '"
						+ amount + "s'");
			}
			return switch (unit.toLowerCase(Locale.ROOT)) {
				case "ns" -> Duration.ofNanos(amount);
				case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		try {
			Duration duration = Duration.parse(text.trim());
			if (duration.isNegative()) {
				throw new IllegalArgumentException("'" + text + "' is negative; durations must not be");
			}
			return duration;
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("'" + text
					+ "' is not a duration: use a number with a unit (500ms, 30s, 5m, 2h, 1d) or ISO-8601 (PT30S)", ex);
		}
	}

}
