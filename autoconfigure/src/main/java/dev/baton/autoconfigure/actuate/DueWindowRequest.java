package dev.baton.autoconfigure.actuate;

import java.time.Instant;
import java.time.format.DateTimeParseException;

import dev.baton.autoconfigure.actuate.BatonEndpoint.DueWindowDescriptor;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskPage;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A queue read's request for the waiting tasks due in a window ({@link DelayQueue#dueBetween}),
 * from the query parameters {@code from}, {@code to} and {@code pageToken}.
 *
 * @param from the earliest due time listed; the epoch unless given
 * @param to the end of the window, left out; after every due time a queue can store unless given
 * @param pageToken the token of the page to read, {@code null} for the first
 */
public record DueWindowRequest(Instant from, Instant to, @Nullable String pageToken) {

	/**
	 * The request the parameters make, if any.
	 * @param from ISO-8601 instant, or {@code null}
	 * @param to ISO-8601 instant, or {@code null}
	 * @param pageToken a page token, or {@code null}
	 * @return the request, or {@code null} if no parameter is given
	 * @throws InvalidEndpointRequestException for an instant that cannot be read (a 400 over HTTP)
	 */
	public static @Nullable DueWindowRequest of(@Nullable String from, @Nullable String to,
			@Nullable String pageToken) {
		if (from == null && to == null && pageToken == null) {
			return null;
		}
		return new DueWindowRequest(instant("from", from, Instant.EPOCH), instant("to", to, Instant.MAX), pageToken);
	}

	private static Instant instant(String parameter, @Nullable String text, Instant absent) {
		if (text == null) {
			return absent;
		}
		try {
			return Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			throw new InvalidEndpointRequestException("Parameter '" + parameter
					+ "' must be an ISO-8601 instant such as 2026-01-31T12:00:00Z but was '" + text + "'",
					"Invalid " + parameter);
		}
	}

	/** Reads one page of the window, and the number of tasks due in it, from the queue. */
	DueWindowDescriptor read(DelayQueue<?> queue, int limit, ShownValues values) {
		try {
			TaskPage<?> page = queue.dueBetween(this.from, this.to, limit, this.pageToken);
			return new DueWindowDescriptor(this.from.toString(), this.to.toString(),
					queue.countDueBetween(this.from, this.to),
					page.tasks().stream().map((task) -> BatonEndpointQueues.describe(task, values)).toList(),
					page.nextPageToken());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid due window");
		}
	}

}
