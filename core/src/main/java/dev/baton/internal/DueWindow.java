package dev.baton.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.zip.CRC32;

import dev.baton.queue.DelayQueue;
import org.jspecify.annotations.Nullable;

/**
 * The checked arguments of {@link DelayQueue#dueBetween}: a window of due times in whole
 * milliseconds, a page size and where the page starts, with the page tokens that carry it from
 * page to page. One set of rules, and one order, for every implementation (Redis, in memory).
 *
 * <p>Tasks are listed by due time and then by id in Unicode code point order (the order of their
 * UTF-8 bytes, which the Redis scripts compare). A page token is a keyset cursor, the due time and
 * id of the last task of the page before, so that a task not changed during a scan is listed
 * exactly once; it names its queue and window, which are checked.
 *
 * @param queue the queue name
 * @param range the window
 * @param limit the most tasks on a page, 1 to {@link DelayQueue#MAX_PAGE_SIZE}
 * @param after the last task of the page before, or {@code null} for the first page
 */
public record DueWindow(String queue, Range range, int limit, @Nullable Cursor after) {

	/** How tasks of a window are ordered: by due time, then by id in code point order. */
	public static final Comparator<Cursor> ORDER = Comparator.comparingLong(Cursor::dueMillis)
		.thenComparing(Cursor::id, DueWindow::compareIds);

	private static final String TOKEN_VERSION = "baton-due-1";

	/**
	 * The checked window and page of a {@code dueBetween} call; nothing is read before.
	 * @throws IllegalArgumentException for {@code from} after {@code to}, a limit out of range, or a
	 * page token of another queue or window, or not one at all
	 */
	public static DueWindow of(String queue, @Nullable Instant from, @Nullable Instant to, int limit,
			@Nullable String pageToken) {
		Range range = Range.of(from, to);
		if (limit < 1 || limit > DelayQueue.MAX_PAGE_SIZE) {
			throw new IllegalArgumentException("Page size must be between 1 and " + DelayQueue.MAX_PAGE_SIZE
					+ " (DelayQueue.MAX_PAGE_SIZE), was " + limit);
		}
		Cursor after = (pageToken != null) ? parse(queue, range, pageToken) : null;
		return new DueWindow(queue, range, limit, after);
	}

	/** The token of the page after the one that ends with this task. */
	public String nextPageToken(Cursor last) {
		String text = String.join("\n", this.queue, Long.toString(this.range.fromMillis()),
				Long.toString(this.range.toMillis()), Long.toString(last.dueMillis()), last.id());
		return Base64.getUrlEncoder()
			.withoutPadding()
			.encodeToString((TOKEN_VERSION + "\n" + checksum(text) + "\n" + text).getBytes(StandardCharsets.UTF_8));
	}

	/** The CRC-32 of a token's fields, so that a token cut or changed is told from one of another cursor. */
	private static String checksum(String text) {
		CRC32 crc = new CRC32();
		crc.update(text.getBytes(StandardCharsets.UTF_8));
		return Long.toHexString(crc.getValue());
	}

	private static Cursor parse(String queue, Range range, String token) {
		String[] fields;
		try {
			String[] envelope = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\n", 3);
			if (envelope.length != 3 || !TOKEN_VERSION.equals(envelope[0]) || !checksum(envelope[2]).equals(envelope[1])) {
				throw corrupted(queue, token);
			}
			fields = envelope[2].split("\n", 5);
		}
		catch (IllegalArgumentException ex) {
			throw corrupted(queue, token);
		}
		if (fields.length != 5) {
			throw corrupted(queue, token);
		}
		if (!fields[0].equals(queue)) {
			throw new IllegalArgumentException("Page token is for queue '" + fields[0] + "', not '" + queue + "'");
		}
		Range tokenRange;
		long dueMillis;
		String id;
		try {
			tokenRange = new Range(Long.parseLong(fields[1]), Long.parseLong(fields[2]));
			dueMillis = Long.parseLong(fields[3]);
			id = QueueInput.id(fields[4]);
		}
		catch (IllegalArgumentException ex) {
			throw corrupted(queue, token);
		}
		if (!tokenRange.equals(range)) {
			throw new IllegalArgumentException("Page token of queue '" + queue + "' is for the window " + tokenRange
					+ ", not " + range);
		}
		if (!range.contains(dueMillis)) {
			throw corrupted(queue, token);
		}
		return new Cursor(dueMillis, id);
	}

	private static IllegalArgumentException corrupted(String queue, String token) {
		String shown = (token.length() > 64) ? token.substring(0, 64) + "..." : token;
		return new IllegalArgumentException(
				"Page token '" + shown + "' is not one that dueBetween returned for queue '" + queue + "'");
	}

	/** Compares ids in Unicode code point order, which is that of their UTF-8 bytes. */
	public static int compareIds(String first, String second) {
		int length = Math.min(first.length(), second.length());
		for (int i = 0; i < length; i++) {
			char a = first.charAt(i);
			char b = second.charAt(i);
			if (a != b) {
				return codePointRank(a) - codePointRank(b);
			}
		}
		return first.length() - second.length();
	}

	/** A UTF-16 unit's place in code point order: surrogates (of code points above U+FFFF) after every other unit. */
	private static int codePointRank(char unit) {
		if (unit >= 0xE000) {
			return unit - 0x800;
		}
		return Character.isSurrogate(unit) ? unit + 0x2000 : unit;
	}

	/**
	 * A window of due times, {@code [fromMillis, toMillis)} in epoch milliseconds: the instants
	 * given, rounded up to whole milliseconds (due times are stored so), and cut to the due times a
	 * queue can store (none before 1970 or after {@link DelayQueue#MAX_DUE_AT}).
	 * @param fromMillis the earliest due time in the window
	 * @param toMillis the first due time after the window
	 */
	public record Range(long fromMillis, long toMillis) {

		/**
		 * The window from {@code from} (included) to {@code to} (left out).
		 * @throws IllegalArgumentException if either is null or {@code from} is after {@code to}
		 */
		public static Range of(@Nullable Instant from, @Nullable Instant to) {
			if (from == null || to == null) {
				throw new IllegalArgumentException("The window's start and end must not be null, were " + from
						+ " and " + to);
			}
			if (from.isAfter(to)) {
				throw new IllegalArgumentException("The window's start " + from + " must not be after its end " + to);
			}
			return new Range(millis(from), millis(to));
		}

		private static long millis(Instant instant) {
			if (instant.isBefore(Instant.EPOCH)) {
				return 0;
			}
			if (instant.isAfter(DelayQueue.MAX_DUE_AT)) {
				return DelayQueue.MAX_DUE_AT.toEpochMilli() + 1;
			}
			return instant.toEpochMilli() + ((instant.getNano() % 1_000_000 != 0) ? 1 : 0);
		}

		/** Whether a due time is in the window. */
		public boolean contains(long dueMillis) {
			return dueMillis >= this.fromMillis && dueMillis < this.toMillis;
		}

		@Override
		public String toString() {
			return "[" + Instant.ofEpochMilli(this.fromMillis) + ", " + Instant.ofEpochMilli(this.toMillis) + ")";
		}

	}

	/**
	 * A task's place in a window's order.
	 * @param dueMillis its due time in epoch milliseconds
	 * @param id its id
	 */
	public record Cursor(long dueMillis, String id) {

		/** Whether this task comes after the given one, or anywhere if there is none. */
		public boolean isAfter(@Nullable Cursor other) {
			return other == null || ORDER.compare(this, other) > 0;
		}

	}

}
