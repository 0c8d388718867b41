package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;

import dev.baton.queue.QueueUnavailableException;
import dev.baton.internal.TimedScripts;


/**
 * Keeps every instance of a queue placing ids with one partition count, the one recorded in Redis.
 * Tasks are placed by id, so an instance with another count would schedule a second task under a
 * taken id, and look for tasks in the wrong partition.
 *
 * <p>The count is recorded in the slot of every partition ({@link QueueKeys#partitions()}; absent
 * means one partition), and every script that places by id, and every claim, refuses a call made
 * with another count ({@code misplaced} in {@code common.lua}): a write is checked atomically with
 * what it writes, so an instance that could not check at start, or one still running after the
 * count changed, refuses to write instead of misplacing. The first instance of a new queue records
 * its count; after that only {@link #change} changes it. Every call is bounded by the queue command
 * timeout.
 */
final class PartitionLayout {

	/** The reply of a script that refused a call made with another partition count. */
	private static final String REFUSAL = "BATON-PARTITIONS";

	private final TimedScripts scripts;

	private final String prefix;

	private final String queue;

	private final int count;

	PartitionLayout(TimedScripts scripts, String prefix, String queue, int count) {
		this.scripts = scripts;
		this.prefix = prefix;
		this.queue = queue;
		this.count = count;
	}

	/**
	 * Checks this instance's count against the one recorded, recording it for a new queue, and
	 * makes sure every partition holds the record.
	 * @throws PartitionCountChangeException if another count is recorded, or being changed
	 * @throws QueueUnavailableException if Redis did not answer: no task was written then, at most the
	 * recorded count
	 */
	void check() {
		Recorded recorded = record(this.scripts, this.prefix, this.queue, this.count);
		if (recorded.count() != this.count) {
			throw recorded.mismatch(this.queue, this.count);
		}
		if (this.count > 1) {
			copyRecord();
		}
	}

	/**
	 * Runs calls placed with this instance's count and, if partitions refused some because another
	 * count is recorded (a new queue, a queue recorded by an older version, or a count changed
	 * since this instance checked), checks the count, recording it for a new queue, and runs those
	 * once more. A check that fails becomes the reply of the refused calls: a
	 * {@link PartitionCountChangeException} if the count differs.
	 * @param calls the calls, one per partition
	 * @param run runs calls and returns their replies in order
	 * @param <C> the type of a call
	 * @return the reply of each call, in order
	 */
	<C> List<TimedScripts.Reply> placed(List<C> calls, Function<List<C>, List<TimedScripts.Reply>> run) {
		List<TimedScripts.Reply> replies = new ArrayList<>(run.apply(calls));
		List<Integer> refused = new ArrayList<>();
		for (int i = 0; i < replies.size(); i++) {
			if (replies.get(i).failure() != null && isRefusal(replies.get(i).failure())) {
				refused.add(i);
			}
		}
		if (refused.isEmpty()) {
			return replies;
		}
		try {
			check();
		}
		catch (RuntimeException ex) {
			refused.forEach((i) -> replies.set(i, new TimedScripts.Reply(null, ex, false)));
			return replies;
		}
		List<TimedScripts.Reply> again = run.apply(refused.stream().map(calls::get).toList());
		for (int i = 0; i < refused.size(); i++) {
			replies.set(refused.get(i), again.get(i));
		}
		return replies;
	}

	/** Whether the failure is a script's refusal of a call made with another partition count. */
	private static boolean isRefusal(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().contains(REFUSAL)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Changes the count of an empty queue: first marks every partition as changing, so that every
	 * instance refuses to write to it, then counts the tasks, then records the new count in every
	 * partition, the first last. A queue that holds tasks keeps its count. A change cut short
	 * (Redis failed) leaves the queue refusing writes until the change is asked for again.
	 * @throws PartitionCountChangeException if the queue holds tasks
	 */
	static void change(TimedScripts scripts, String prefix, String queue, int count) {
		Recorded recorded = record(scripts, prefix, queue, count);
		// A negative count is a change cut short: its opposite is the count the tasks were placed with.
		int from = Math.abs(recorded.count());
		if (recorded.count() == count) {
			return;
		}
		List<QueueKeys> both = new QueuePartitions(prefix, queue, Math.max(from, count)).all();
		String what = "change the partitions of queue '" + queue + "'";
		setAll(scripts, what, both, (partition) -> Integer.toString(-from));
		long tasks = tasks(scripts, what, new QueuePartitions(prefix, queue, from));
		int to = (tasks > 0) ? from : count;
		// Partitions beyond the new count lose their record: absent means one, so writes there are refused.
		setAll(scripts, what, both.subList(1, both.size()), (i) -> (i + 1 < to) ? Integer.toString(to) : "1");
		setAll(scripts, what, both.subList(0, 1), (i) -> Integer.toString(to));
		if (tasks > 0) {
			throw new PartitionCountChangeException(queue, from, count, tasks);
		}
	}

	private static Recorded record(TimedScripts scripts, String prefix, String queue, int count) {
		QueueKeys first = QueueKeys.of(prefix, queue);
		List<?> reply = (List<?>) scripts.eval("check the partitions of queue '" + queue + "'",
				QueueScript.PARTITION_COUNT.script(), List.of(first.partitions(), first.due(), first.inFlight(),
						first.dead()),
				Integer.toString(count));
		return new Recorded(((Number) reply.get(0)).intValue(), ((Number) reply.get(1)).longValue());
	}

	/**
	 * Records the count in the partitions that hold no record yet (a queue recorded by a version
	 * that kept it in the first partition only), then reads the first partition's record again: if
	 * a change came in between, the records just written go again.
	 */
	private void copyRecord() {
		String what = "record the partitions of queue '" + this.queue + "'";
		List<QueueKeys> others = new QueuePartitions(this.prefix, this.queue, this.count).all().subList(1, this.count);
		List<TimedScripts.Script> calls = new ArrayList<>(others.size());
		for (QueueKeys partition : others) {
			calls.add(new TimedScripts.Script(QueueScript.SET_PARTITIONS.script(), List.of(partition.partitions()),
					Integer.toString(this.count), "if-absent"));
		}
		List<TimedScripts.Reply> replies = this.scripts.evalAll(what, calls);
		Recorded now = record(this.scripts, this.prefix, this.queue, this.count);
		if (now.count() == this.count) {
			for (TimedScripts.Reply reply : replies) {
				this.scripts.value(what, reply);
			}
			return;
		}
		List<QueueKeys> written = new ArrayList<>();
		for (int i = 0; i < replies.size(); i++) {
			if (replies.get(i).failure() == null && ((Number) ((List<?>) replies.get(i).value()).get(0)).intValue() == 1) {
				written.add(others.get(i));
			}
		}
		setAll(this.scripts, what, written, (partition) -> "1");
		throw now.mismatch(this.queue, this.count);
	}

	/** Records a count in each of the partitions, the i-th's given by {@code count}, in one round trip. */
	private static void setAll(TimedScripts scripts, String what, List<QueueKeys> partitions,
			IntFunction<String> count) {
		List<TimedScripts.Script> calls = new ArrayList<>(partitions.size());
		for (int i = 0; i < partitions.size(); i++) {
			calls.add(new TimedScripts.Script(QueueScript.SET_PARTITIONS.script(),
					List.of(partitions.get(i).partitions()), count.apply(i), "always"));
		}
		for (TimedScripts.Reply reply : scripts.evalAll(what, calls)) {
			scripts.value(what, reply);
		}
	}

	/** The tasks stored in all partitions: one stats script each, sent all at once. */
	private static long tasks(TimedScripts scripts, String what, QueuePartitions partitions) {
		List<TimedScripts.Script> calls = new ArrayList<>();
		for (QueueKeys keys : partitions.all()) {
			calls.add(new TimedScripts.Script(QueueScript.STATS.script(), keys.forStats()));
		}
		long tasks = 0;
		for (TimedScripts.Reply reply : scripts.evalAll(what, calls)) {
			List<?> stats = (List<?>) scripts.value(what, reply);
			for (int i = 0; i < 4; i++) {
				tasks += ((Number) stats.get(i)).longValue();
			}
		}
		return tasks;
	}

	/**
	 * A queue's recorded count, and the tasks that kept the first instance from recording its own.
	 * @param count the count; negative while a change from its opposite is under way
	 */
	private record Recorded(int count, long tasks) {

		PartitionCountChangeException mismatch(String queue, int configured) {
			if (this.count < 0) {
				return PartitionCountChangeException.changing(queue, -this.count, configured);
			}
			return (this.tasks > 0) ? new PartitionCountChangeException(queue, this.count, configured, this.tasks)
					: new PartitionCountChangeException(queue, this.count, configured);
		}

	}

}
