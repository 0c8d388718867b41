package dev.baton.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;

/**
 * Schedules tasks with ids through a random instance, one at a time with spread-out due times or
 * in bunches due together; a call that fails is tried again with the same ids, as an application
 * would (a task id cannot be scheduled twice while it waits or runs). Between schedules, as the
 * seeded random picks, it cancels or reschedules one of its recent tasks, or reads the dead
 * letters and redrives some of them, a few after "fixing" them so that their handler succeeds.
 * Every such call and what it returned goes to the ledger.
 */
final class TaskProducer implements Runnable {

	private static final int MAX_TASKS = 2_000;

	private static final int ATTEMPTS = 5;

	/** Each instance's queue, as its application has it at the time of a call. */
	private final List<Supplier<DelayQueue<HarnessTask>>> queues;

	private final TaskLedger ledger;

	private final Timeline timeline;

	private final CallBounds bounds;

	private final long untilMillis;

	private final Random random;

	/** Which long tasks ignore interrupts: a stream of its own, so that a seed keeps its tasks. */
	private final Random stubbornness;

	private int next;

	/** Ids this producer had accepted, most recent last: what it cancels and reschedules. */
	private final List<String> recent = new ArrayList<>();

	private final int[] actions = new int[3];

	private volatile int calls;

	private volatile int failures;

	TaskProducer(List<Supplier<DelayQueue<HarnessTask>>> queues, TaskLedger ledger, Timeline timeline, CallBounds bounds,
			long untilMillis, long seed) {
		this.queues = queues;
		this.ledger = ledger;
		this.timeline = timeline;
		this.bounds = bounds;
		this.untilMillis = untilMillis;
		this.random = new Random(seed);
		this.stubbornness = new Random(seed * 59 + 11);
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
			int pick = this.random.nextInt(20);
			if (pick < 3) {
				act(TaskLedger.ActionKind.CANCEL, pickRecent(), 0);
			}
			else if (pick < 6) {
				act(TaskLedger.ActionKind.RESCHEDULE, pickRecent(), this.random.nextInt(3000));
			}
			else if (pick < 7) {
				redriveSome();
			}
			Pause.millis(40 + this.random.nextInt(80));
		}
	}

	private HarnessTask payload() {
		int pick = this.random.nextInt(20);
		if (pick < 12) {
			return new HarnessTask("fast", 0, 0);
		}
		if (pick < 15) {
			return new HarnessTask("slow", 200 + this.random.nextInt(1000), 0);
		}
		if (pick < 16) {
			// Past the visibility timeout: held only by the container's extensions. Past the
			// shutdown timeout too: one in two goes on when a stopping container interrupts it.
			long sleepMillis = 2500 + this.random.nextInt(3500);
			return new HarnessTask(this.stubbornness.nextBoolean() ? "stubborn" : "slow", sleepMillis, 0);
		}
		if (pick < 19) {
			return new HarnessTask("flaky", 0, 1 + this.random.nextInt(2));
		}
		return new HarnessTask("failing", 0, 0);
	}

	private void schedule(List<NewTask<HarnessTask>> tasks) {
		long firstTry = this.timeline.now();
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			int instance = this.random.nextInt(this.queues.size());
			DelayQueue<HarnessTask> queue = this.queues.get(instance).get();
			long start = this.timeline.now();
			this.calls++;
			try {
				this.bounds.call("scheduleAll of " + ids(tasks), "producer", Duration.ZERO,
						() -> queue.scheduleAll(tasks));
				// Ids left out of the answer were stored by an earlier try that failed to answer.
				tasks.forEach((task) -> this.ledger.accepted.put(task.id(), start));
				if (attempt > 1) {
					tasks.forEach((task) -> this.ledger.scheduledAgain.put(task.id(), start));
				}
				tasks.forEach((task) -> this.recent.add(task.id()));
				this.timeline.record("producer", "scheduled " + ids(tasks) + " (try " + attempt + ")");
				for (NewTask<HarnessTask> task : tasks) {
					this.timeline.record(task.id(), "scheduled by " + task.delay().toMillis() + " ms through instance-"
							+ instance + " (try " + attempt + ", called at " + start + " ms)");
				}
				return;
			}
			catch (Exception ex) {
				this.failures++;
				this.timeline.record("producer", "scheduling " + ids(tasks) + " failed: " + ex.getMessage());
				for (NewTask<HarnessTask> task : tasks) {
					this.ledger.failedSchedules
						.add(new TaskLedger.FailedSchedule(task.id(), instance, start, this.timeline.now()));
					this.timeline.record(task.id(), "scheduling through instance-" + instance + " (try " + attempt
							+ ", called at " + start + " ms) failed: " + ex.getMessage());
				}
				Pause.millis(100);
			}
		}
		tasks.forEach((task) -> this.ledger.unknown.put(task.id(), firstTry));
	}

	/** One of the last 12 tasks accepted, most of them still waiting; {@code null} if none yet. */
	private String pickRecent() {
		if (this.recent.isEmpty()) {
			return null;
		}
		int window = Math.min(12, this.recent.size());
		return this.recent.get(this.recent.size() - 1 - this.random.nextInt(window));
	}

	/** Reads the latest dead letters through a random instance and redrives up to three, fixing about half. */
	private void redriveSome() {
		DelayQueue<HarnessTask> queue = this.queues.get(this.random.nextInt(this.queues.size())).get();
		List<String> dead;
		try {
			dead = this.bounds.call("deadLetters", "producer", Duration.ZERO,
					() -> queue.deadLetters(20).stream().map(DeadLetter::id).toList());
		}
		catch (Exception ex) {
			this.timeline.record("producer", "reading the dead letters failed: " + ex.getMessage());
			return;
		}
		for (int i = 0; i < Math.min(3, dead.size()); i++) {
			String id = dead.get(this.random.nextInt(dead.size()));
			if (this.random.nextBoolean()) {
				// The fix is deployed before the redrive, as an operator would.
				this.ledger.fixed.add(id);
			}
			act(TaskLedger.ActionKind.REDRIVE, id, 0);
		}
	}

	private void act(TaskLedger.ActionKind kind, String id, long delayMillis) {
		if (id == null) {
			return;
		}
		int instance = this.random.nextInt(this.queues.size());
		DelayQueue<HarnessTask> queue = this.queues.get(instance).get();
		long start = this.timeline.now();
		long startWall = System.currentTimeMillis();
		TaskLedger.Result result;
		try {
			boolean done = this.bounds.call(kind.name().toLowerCase(Locale.ROOT) + " of " + id, "producer",
					Duration.ZERO, () -> switch (kind) {
						case CANCEL -> queue.cancel(id);
						case RESCHEDULE -> queue.reschedule(id, Duration.ofMillis(delayMillis));
						case REDRIVE -> queue.redrive(id);
					});
			result = done ? TaskLedger.Result.TRUE : TaskLedger.Result.FALSE;
		}
		catch (Exception ex) {
			result = TaskLedger.Result.UNKNOWN;
		}
		long end = this.timeline.now();
		this.ledger.actions.add(new TaskLedger.Action(id, kind, start, end, startWall, delayMillis, result));
		this.actions[kind.ordinal()]++;
		this.timeline.record(id, kind.name().toLowerCase(Locale.ROOT)
				+ ((kind == TaskLedger.ActionKind.RESCHEDULE) ? " by " + delayMillis + " ms" : "") + " through instance-"
				+ instance + " called at " + start + " ms (wall " + startWall + "), returned " + result + " at " + end
				+ " ms");
	}

	String summary() {
		return this.calls + " scheduling calls, " + this.failures + " failed; " + this.actions[0] + " cancels, "
				+ this.actions[1] + " reschedules, " + this.actions[2] + " redrives";
	}

	private static String ids(List<NewTask<HarnessTask>> tasks) {
		return (tasks.size() == 1) ? tasks.get(0).id()
				: tasks.get(0).id() + ".." + tasks.get(tasks.size() - 1).id();
	}

}
