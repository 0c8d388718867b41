package dev.baton.queue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One page of the waiting tasks of a queue that fall due in a window, as
 * {@link DelayQueue#dueBetween} returns them.
 *
 * @param tasks the tasks of this page, by due time and then by id (in Unicode code point order); a
 * task whose payload cannot be read is shown with a {@code null} payload and its stored JSON in
 * {@link ScheduledTask#unreadablePayload()}
 * @param nextPageToken the token that asks for the next page, or {@code null} if this page is the
 * last; opaque, and good only for the same queue and window
 * @param <T> the payload type
 */
public record TaskPage<T>(List<ScheduledTask<T>> tasks, @Nullable String nextPageToken) {

	/**
	 * A page of the given tasks.
	 * @param tasks the tasks, copied
	 * @param nextPageToken the token of the next page, or {@code null} if this page is the last
	 */
	public TaskPage {
		tasks = List.copyOf(tasks);
	}

	/**
	 * Whether a next page may hold more tasks.
	 * @return {@code true} if {@link #nextPageToken()} is not {@code null}
	 */
	public boolean hasNext() {
		return this.nextPageToken != null;
	}

}
