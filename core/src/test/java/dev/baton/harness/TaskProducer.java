package dev.baton.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;

/**
 * Schedules tasks with ids through a random instance, one at a time with spread-out due times or
 * in bunches due together; a call that fails is tried again with the same ids, as an application
 * would (a task id cannot be scheduled twice while it waits or runs).
 */
final class TaskProducer implements Runnable {

	private static final int MAX_TASKS = 2_000;

	private static final int ATTEMPTS = 5;

	private final List<DelayQueue<HarnessTask>> queues;

	private final TaskLedger ledger;

	private final Timeline timeline;

	private final CallBounds bounds;

	private final long untilMillis;

	private final Random random;

	private int next;

	private volatile int calls;

	private volatile int failures;

	TaskProducer(List<DelayQueue<HarnessTask>> queues, TaskLedger ledger, Timeline timeline, CallBounds bounds,
			long untilMillis, long seed) {
		this.queues = queues;
		this.ledger = ledger;
		this.timeline = timeline;
		this.bounds = bounds;
		this.untilMillis = untilMillis;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		while (this.timeline.now() < this.untilMillis && this.next < MAX_TASKS) {
			boolean bunch = this.random.nextInt(8) == 0;
			int count = bunch ? 5 + this.random.nextInt(15) : 1;
			Duration delay = Duration.ofMillis(this.random.nextInt(bunch ? 2000 : 3000));
			List<NewTask<HarnessTask>> tasks = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				tasks.add(NewTask.of("t-" + this.next++, payload(), delay));
			}
			schedule(tasks);
			Pause.millis(40 + this.random.nextInt(80));
		}
	}

	private HarnessTask payload() {
		int pick = this.random.nextInt(20);
		if (pick < 12) {
			return new HarnessTask("fast", 0, 0);
		}
		if (pick < 16) {
			return new HarnessTask("slow", 200 + this.random.nextInt(1000), 0);
		}
		if (pick < 19) {
			return new HarnessTask("flaky", 0, 1 + this.random.nextInt(2));
		}
		return new HarnessTask("failing", 0, 0);
	}

	private void schedule(List<NewTask<HarnessTask>> tasks) {
		long firstTry = this.timeline.now();
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			DelayQueue<HarnessTask> queue = this.queues.get(this.random.nextInt(this.queues.size()));
			long start = this.timeline.now();
			this.calls++;
			try {
				this.bounds.call("scheduleAll of " + ids(tasks), "producer", Duration.ZERO,
						() -> queue.scheduleAll(tasks));
				// Ids left out of the answer were stored by an earlier try that failed to answer.
				tasks.forEach((task) -> this.ledger.accepted.put(task.id(), start));
				this.timeline.record("producer", "scheduled " + ids(tasks) + " (try " + attempt + ")");
				return;
			}
			catch (Exception ex) {
				this.failures++;
				this.timeline.record("producer", "scheduling " + ids(tasks) + " failed: " + ex.getMessage());
				Pause.millis(100);
			}
		}
		tasks.forEach((task) -> this.ledger.unknown.put(task.id(), firstTry));
	}

	String summary() {
		return this.calls + " scheduling calls, " + this.failures + " failed";
	}

	private static String ids(List<NewTask<HarnessTask>> tasks) {
		return (tasks.size() == 1) ? tasks.get(0).id()
				: tasks.get(0).id() + ".." + tasks.get(tasks.size() - 1).id();
	}

}
