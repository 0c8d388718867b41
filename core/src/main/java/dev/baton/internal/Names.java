package dev.baton.internal;

/**
 * Checks the names and ids that Baton writes into log lines and exception messages: a control
 * character in one (a line break, say) could forge a log line, so it is refused where the name
 * enters, and the refusal names the character by code point instead of echoing the value.
 */
public final class Names {

	private Names() {
	}

	/**
	 * Refuse control characters ({@code \p{Cc}}) and the line and paragraph separators
	 * (U+2028, U+2029).
	 * @param what what the value is, e.g. {@code "Task id"}, to start the message with
	 * @param value the value to check
	 * @throws IllegalArgumentException naming the first such character and its index
	 */
	public static void requireNoControlCharacters(String what, String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.getType(c) == Character.CONTROL || c == '\u2028' || c == '\u2029') {
				throw new IllegalArgumentException(String.format(
						"%s must not contain control characters or line separators, but has U+%04X at index %d", what,
						(int) c, i));
			}
		}
	}

}
