package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import dev.baton.internal.DueWindow;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import org.jspecify.annotations.Nullable;

/**
 * One page of {@link dev.baton.queue.DelayQueue#dueBetween} from the partitions' shares: each
 * partition returns, in the window's order, at most a page of tasks after the cursor
 * ({@code due-window.lua}), and the page is the first of all of them, taken by a k-way merge. Only
 * the tasks on the page have their payloads read.
 */
final class DueWindowMerge {

	private DueWindowMerge() {
	}

	/**
	 * The page.
	 * @param window the window, page size and cursor the partitions were asked with
	 * @param replies each partition's reply of {@code due-window.lua}
	 * @param view how a stored task is shown
	 */
	static <T> TaskPage<T> page(DueWindow window, List<List<Object>> replies, TaskView<T> view) {
		PriorityQueue<Share> heads = new PriorityQueue<>(Comparator.comparing(Share::head, DueWindow.ORDER));
		boolean more = false;
		for (List<Object> reply : replies) {
			more |= "1".equals(reply.get(0));
			Share share = Share.of(reply);
			if (share != null) {
				heads.add(share);
			}
		}
		List<ScheduledTask<T>> tasks = new ArrayList<>(Math.min(window.limit(), 64));
		DueWindow.Cursor last = null;
		while (tasks.size() < window.limit() && !heads.isEmpty()) {
			Share share = heads.poll();
			last = share.head();
			tasks.add(view.of(last.id(), share.payload(), share.meta()));
			if (share.next()) {
				heads.add(share);
			}
		}
		more |= !heads.isEmpty();
		return new TaskPage<>(tasks, (more && last != null) ? window.nextPageToken(last) : null);
	}

	/**
	 * How a stored task is shown.
	 * @param <T> the payload type
	 */
	@FunctionalInterface
	interface TaskView<T> {

		ScheduledTask<T> of(String id, String payload, String meta);

	}

	/** What is left of one partition's reply: due time, id, payload and meta per task, after a flag. */
	private static final class Share {

		private final List<Object> reply;

		private int index = 1;

		private DueWindow.Cursor head;

		private Share(List<Object> reply) {
			this.reply = reply;
			this.head = headAt(1);
		}

		static @Nullable Share of(List<Object> reply) {
			return (reply.size() > 1) ? new Share(reply) : null;
		}

		DueWindow.Cursor head() {
			return this.head;
		}

		String payload() {
			return (String) this.reply.get(this.index + 2);
		}

		String meta() {
			return (String) this.reply.get(this.index + 3);
		}

		/** Moves to the next task; {@code false} if there is none. */
		boolean next() {
			this.index += 4;
			if (this.index >= this.reply.size()) {
				return false;
			}
			this.head = headAt(this.index);
			return true;
		}

		private DueWindow.Cursor headAt(int at) {
			return new DueWindow.Cursor(Long.parseLong((String) this.reply.get(at)), (String) this.reply.get(at + 1));
		}

	}

}
