package dev.baton.harness;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskContext;
import reactor.core.publisher.Mono;

/**
 * The handler of one instance: behaves as the task's payload says, and records every run. An
 * instance registers {@link #handle} (returns when done, throws to fail), {@link #handleAsync}
 * (returns at once a future that another thread completes, exceptionally to fail, after looking
 * up the task in Redis while the future is still pending) or {@link #handleReactive} (the same as
 * a {@code Mono}).
 */
final class TaskHandler implements AutoCloseable {

	private final int instance;

	private final String label;

	private final TaskLedger ledger;

	private final Timeline timeline;

	/** Reads Redis directly, without the instance's proxy: where the task is while a future is pending. */
	private final DelayQueue<HarnessTask> observer;

	private final ExecutorService completions;

	/**
	 * @param instance the instance whose runs it records
	 * @param label how its events name it: the instance and its application
	 */
	TaskHandler(int instance, String label, TaskLedger ledger, Timeline timeline, DelayQueue<HarnessTask> observer) {
		this.label = label;
		this.instance = instance;
		this.ledger = ledger;
		this.timeline = timeline;
		this.observer = observer;
		this.completions = Executors.newFixedThreadPool(4, (runnable) -> {
			Thread thread = new Thread(runnable, "harness-completions-" + instance);
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Invoked by the listener container, as a {@code @DelayedTask} method would be. */
	void handle(HarnessTask task, TaskContext context) throws InterruptedException {
		long start = this.timeline.now();
		long startWall = System.currentTimeMillis();
		boolean fails = fails(task, context);
		if (task.behaviour().equals("slow")) {
			Thread.sleep(task.sleepMillis());
		}
		else if (task.behaviour().equals("stubborn")) {
			sleepThroughInterrupts(task.sleepMillis());
		}
		// Recorded before returning: a run whose acknowledgement is lost still ran.
		record(context, start, startWall, !fails, false, false);
		if (fails) {
			Throwable failure = failure(context, "");
			if (failure instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) failure;
		}
	}

	/** Invoked by the listener container, as an asynchronous {@code @DelayedTask} method would be. */
	CompletableFuture<Void> handleAsync(HarnessTask task, TaskContext context) {
		long start = this.timeline.now();
		long startWall = System.currentTimeMillis();
		boolean fails = fails(task, context);
		CompletableFuture<Void> future = new CompletableFuture<>();
		this.completions.execute(() -> {
			// Nobody interrupts this thread: a stopping container cancels the future instead.
			Pause.millis(task.sleepMillis() > 0 ? task.sleepMillis() : 20);
			boolean absent = !inFlight(context.id());
			record(context, start, startWall, !fails, true, absent);
			if (fails) {
				future.completeExceptionally(failure(context, " asynchronously"));
			}
			else {
				future.complete(null);
			}
		});
		return future;
	}

	/**
	 * Invoked by the listener container, as a reactive {@code @DelayedTask} method would be: the
	 * work of {@link #handleAsync}, begun when the container subscribes.
	 */
	Mono<Void> handleReactive(HarnessTask task, TaskContext context) {
		return Mono.defer(() -> Mono.fromFuture(handleAsync(task, context)));
	}

	/** Sleeps the whole time, interrupted or not, and keeps the interrupt. */
	private static void sleepThroughInterrupts(long millis) {
		long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		boolean interrupted = false;
		for (long left = millis; left > 0; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
			try {
				Thread.sleep(left);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private boolean fails(HarnessTask task, TaskContext context) {
		return (task.behaviour().equals("failing") && !this.ledger.fixed.contains(context.id()))
				|| (task.behaviour().equals("flaky") && context.attempt() <= task.failures());
	}

	/**
	 * What a failing attempt throws: an {@code Error} for one task in two (an assertion, a linkage
	 * error of a library), which must count as a failure like any exception, else an exception.
	 */
	private static Throwable failure(TaskContext context, String how) {
		String message = "harness task " + context.id() + " fails attempt " + context.attempt() + how;
		return (Math.floorMod(context.id().hashCode(), 2) == 0) ? new AssertionError(message)
				: new IllegalStateException(message);
	}

	/** Whether Redis has the task in flight; {@code true} when Redis does not answer (nothing seen). */
	private boolean inFlight(String id) {
		try {
			Optional<ScheduledTask<HarnessTask>> found = this.observer.find(id);
			return found.isPresent() && found.get().inFlight();
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	private void record(TaskContext context, long start, long startWall, boolean succeeded, boolean async,
			boolean absent) {
		this.ledger.ran(new TaskLedger.Run(context.id(), this.instance, context.attempt(),
				context.dueAt().toEpochMilli(), start, startWall, this.timeline.now(), succeeded, async, absent,
				context.scheduledAt().toEpochMilli(), context.isLost()));
		this.timeline.record(context.id(), this.label + " ran attempt " + context.attempt()
				+ (async ? " asynchronously" : "") + " (scheduled " + context.scheduledAt().toEpochMilli() + ", due "
				+ context.dueAt().toEpochMilli() + ", started at wall "
				+ startWall + ")" + (succeeded ? "" : ", failing") + (context.isLost() ? ", delivery already lost" : "")
				+ (absent ? ", NOT IN FLIGHT while its future was pending" : ""));
	}

	@Override
	public void close() {
		this.completions.shutdownNow();
	}

}
