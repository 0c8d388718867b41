package dev.baton.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations of Baton's annotations the way Spring Boot reads duration properties:
 * {@code 500ms}, {@code 3s}, {@code 5m}, {@code 2h}, {@code 1d}, {@code 0}, or ISO-8601 such as
 * {@code PT3S}. A number without a unit is milliseconds. Core has no Spring Boot dependency,
 * hence this small parser.
 */
public final class Durations {

	private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

	private static final Map<String, ChronoUnit> UNITS = Map.of("", ChronoUnit.MILLIS, "ns", ChronoUnit.NANOS, "us",
			ChronoUnit.MICROS, "ms", ChronoUnit.MILLIS, "s", ChronoUnit.SECONDS, "m", ChronoUnit.MINUTES, "h",
			ChronoUnit.HOURS, "d", ChronoUnit.DAYS);

	private Durations() {
	}

	/**
	 * Parses a duration that must not be negative.
	 * @param text the duration text, already stripped of placeholders
	 * @return the duration
	 * @throws IllegalArgumentException naming the text when it is not a duration or negative
	 */
	public static Duration parse(String text) {
		Duration duration = parseSigned(text.trim());
		if (duration.isNegative()) {
			throw new IllegalArgumentException("Duration '" + text + "' must not be negative");
		}
		return duration;
	}

	private static Duration parseSigned(String text) {
		Matcher simple = SIMPLE.matcher(text);
		if (simple.matches()) {
			ChronoUnit unit = UNITS.get(simple.group(2).toLowerCase(Locale.ROOT));
			if (unit != null) {
				return Duration.of(Long.parseLong(simple.group(1)), unit);
			}
		}
		else if (text.regionMatches(true, 0, "P", 0, 1)) {
			try {
				return Duration.parse(text);
			}
			catch (DateTimeParseException ex) {
				// reported below, with the accepted forms
			}
		}
		throw new IllegalArgumentException("'" + text
				+ "' is not a duration: use e.g. 500ms, 3s, 5m, 2h, 1d, or ISO-8601 such as PT3S");
	}

}
