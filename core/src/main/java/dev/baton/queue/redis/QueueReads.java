package dev.baton.queue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import dev.baton.internal.DueWindow;
import dev.baton.internal.QueueInput;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * What a queue shows of its tasks without changing them: one task, the first ones, a due window,
 * its stats and dead letters, merged across partitions. A payload that cannot be read is shown as
 * the stored JSON rather than failing the view.
 *
 * @param <T> the payload type
 */
final class QueueReads<T> {

	private final String name;

	private final QueuePartitions partitions;

	private final PayloadCodec<T> codec;

	private final PartitionCalls calls;

	QueueReads(String name, QueuePartitions partitions, PayloadCodec<T> codec, PartitionCalls calls) {
		this.name = name;
		this.partitions = partitions;
		this.codec = codec;
		this.calls = calls;
	}

	public Optional<ScheduledTask<T>> find(String id) {
		String checkedId = QueueInput.id(id);
		List<Object> reply = this.calls.call(QueueScript.FIND, "find task '" + checkedId + "'",
				this.partitions.forId(checkedId).forFind(), this.partitions.placing(checkedId));
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(view(checkedId, (String) reply.get(0), (String) reply.get(1), "1".equals(reply.get(2))));
	}

	public List<ScheduledTask<T>> peek(int max) {
		List<ScheduledTask<T>> tasks = new ArrayList<>();
		for (List<Object> reply : readFirst(QueueScript.PEEK, "peek at queue", QueueKeys::forPeek, QueueInput.readMax(max),
				false)) {
			for (int i = 0; i < reply.size(); i += 3) {
				tasks.add(view((String) reply.get(i), (String) reply.get(i + 1), (String) reply.get(i + 2), false));
			}
		}
		return inOrder(tasks, Comparator.comparing(ScheduledTask::dueAt));
	}

	public TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken) {
		DueWindow window = DueWindow.of(this.name, from, to, limit, pageToken);
		DueWindow.Cursor after = window.after();
		List<String> args = List.of(Long.toString(window.range().fromMillis()),
				Long.toString(window.range().toMillis()), (after != null) ? Long.toString(after.dueMillis()) : "",
				(after != null) ? after.id() : "", Integer.toString(window.limit()));
		return DueWindowMerge.page(window,
				this.calls.onEach(this.partitions.all(), QueueScript.DUE_WINDOW, "list the tasks due in a window of queue", QueueKeys::forPeek, args),
				(id, payload, meta) -> view(id, payload, meta, false));
	}

	public long countDueBetween(Instant from, Instant to) {
		DueWindow.Range range = DueWindow.Range.of(from, to);
		List<String> args = List.of(Long.toString(range.fromMillis()), Long.toString(range.toMillis()));
		long count = 0;
		for (List<Object> reply : this.calls.onEach(this.partitions.all(), QueueScript.COUNT_DUE, "count the tasks due in a window of queue",
				QueueKeys::forCountDue, args)) {
			count += (Long) reply.get(0);
		}
		return count;
	}

	/** The tasks or dead letters that several partitions returned, each in its order, in one order. */
	private <E> List<E> inOrder(List<E> merged, Comparator<E> order) {
		if (this.partitions.count() > 1) {
			merged.sort(order);
		}
		return merged;
	}

	/** A stored task as {@code find}, {@code peek} and {@code dueBetween} show it: one whose payload cannot be read, as such. */
	private ScheduledTask<T> view(String id, String payload, String meta, boolean inFlight) {
		TaskMeta parsed = TaskMeta.parse(meta);
		T read = readOrNull(id, payload);
		return new ScheduledTask<>(id, read, parsed.dueAt(), parsed.scheduledAt(), inFlight,
				(read != null) ? null : payload, (parsed.lease() != null) ? parsed.lease().name() : null);
	}

	/**
	 * The replies of a script that reads the first {@code max} entries of a partition in score
	 * order ({@code peek.lua}, {@code dead-letters.lua}). A partitioned queue first reads only
	 * scores, those of each partition's first few ({@link PartitionShares#firstAsk}), or of its
	 * first {@code max} when those do not tell, and then from each partition its share of the first
	 * {@code max} of all, so that it reads {@code max} payloads in all, not {@code max} per
	 * partition (in two or three round trips, not one snapshot).
	 * @param newestFirst whether the script returns the highest scores first
	 */
	private List<List<Object>> readFirst(QueueScript script, String what, Function<QueueKeys, List<String>> keys,
			int max, boolean newestFirst) {
		List<QueueKeys> all = this.partitions.all();
		if (all.size() == 1) {
			return this.calls.onEach(this.partitions.all(), script, what, keys, List.of(Integer.toString(max), "entries"));
		}
		int asked = PartitionShares.firstAsk(max, all.size());
		int[] shares = PartitionShares.of(scores(script, what, keys, asked), asked, max, newestFirst);
		if (shares == null) {
			shares = PartitionShares.of(scores(script, what, keys, max), max, max, newestFirst);
		}
		List<PartitionCall> calls = new ArrayList<>();
		for (int partition = 0; partition < all.size(); partition++) {
			if (shares[partition] > 0) {
				calls.add(new PartitionCall(keys.apply(all.get(partition)),
						List.of(Integer.toString(shares[partition]), "entries")));
			}
		}
		return this.calls.replies(script, what + " '" + this.name + "'", calls);
	}

	private List<List<Object>> scores(QueueScript script, String what, Function<QueueKeys, List<String>> keys,
			int count) {
		return this.calls.onEach(this.partitions.all(), script, what, keys, List.of(Integer.toString(count), "scores"));
	}

	public QueueStats stats() {
		long scheduled = 0;
		long due = 0;
		long inFlight = 0;
		long dead = 0;
		Instant oldestDue = null;
		for (List<Object> reply : this.calls.onEach(this.partitions.all(), QueueScript.STATS, "read the stats of queue", QueueKeys::forStats,
				List.of())) {
			scheduled += (Long) reply.get(0);
			due += (Long) reply.get(1);
			inFlight += (Long) reply.get(2);
			dead += (Long) reply.get(3);
			long oldest = Long.parseLong((String) reply.get(4));
			if (oldest >= 0 && (oldestDue == null || oldest < oldestDue.toEpochMilli())) {
				oldestDue = Instant.ofEpochMilli(oldest);
			}
		}
		return new QueueStats(scheduled, due, inFlight, dead, oldestDue);
	}

	public List<DeadLetter<T>> deadLetters(int max) {
		List<DeadLetter<T>> deadLetters = new ArrayList<>();
		for (List<Object> reply : readFirst(QueueScript.DEAD_LETTERS, "read the dead letters of queue",
				QueueKeys::forDeadLetters, QueueInput.readMax(max), true)) {
			for (int i = 0; i < reply.size(); i += 4) {
				String[] info = ((String) reply.get(i + 3)).split("\\|", 3);
				Instant failedAt = Instant.ofEpochMilli((long) Double.parseDouble((String) reply.get(i + 1)));
				String payload = (String) reply.get(i + 2);
				String id = (String) reply.get(i);
				T read = readOrNull(id, payload);
				deadLetters.add(new DeadLetter<>(id, read, Integer.parseInt(info[0]), info[2],
						failedAt, (read != null) ? null : payload));
			}
		}
		return inOrder(deadLetters, Comparator.comparing(DeadLetter<T>::failedAt).reversed());
	}

	private @Nullable T readOrNull(String id, String payload) {
		try {
			return this.codec.read(id, payload);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

}
