package dev.baton.harness;

import dev.baton.queue.TaskContext;

/** The handler of one instance: behaves as the task's payload says, and records every run. */
final class TaskHandler {

	private final int instance;

	private final TaskLedger ledger;

	private final Timeline timeline;

	TaskHandler(int instance, TaskLedger ledger, Timeline timeline) {
		this.instance = instance;
		this.ledger = ledger;
		this.timeline = timeline;
	}

	/** Invoked by the listener container, as a {@code @DelayedTask} method would be. */
	void handle(HarnessTask task, TaskContext context) throws InterruptedException {
		boolean fails = task.behaviour().equals("failing")
				|| (task.behaviour().equals("flaky") && context.attempt() <= task.failures());
		if (task.behaviour().equals("slow")) {
			Thread.sleep(task.sleepMillis());
		}
		// Recorded before returning: a run whose acknowledgement is lost still ran.
		this.ledger.ran(context.id(), !fails);
		this.timeline.record(context.id(), "instance-" + this.instance + " ran attempt " + context.attempt()
				+ (fails ? ", failing" : "") + (context.isLost() ? ", delivery already lost" : ""));
		if (fails) {
			throw new IllegalStateException("harness task " + context.id() + " fails attempt " + context.attempt());
		}
	}

}
