package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.baton.internal.BatonThreads;

/**
 * How a {@link DelayedTaskListenerRegistry} stops its containers: all in parallel, each waiting
 * for its running handlers no longer than the context's shutdown phase leaves after the final
 * hand-back, so that stopping ends within the phase whatever Redis does.
 */
final class ParallelShutdown {

	/** What stopping keeps of the phase beyond the final hand-back: stopping threads and executors. */
	private static final Duration STOP_MARGIN = Duration.ofSeconds(1);

	private final BatonThreads threads;

	private final Duration maxWait;

	/**
	 * @param threads the threads the containers stop on
	 * @param shutdownPhaseTimeout how long the context waits for the registry's shutdown phase
	 */
	ParallelShutdown(BatonThreads threads, Duration shutdownPhaseTimeout) {
		this.threads = threads;
		Duration wait = shutdownPhaseTimeout.minus(DelayedTaskListenerContainer.HAND_BACK_TIMEOUT).minus(STOP_MARGIN);
		this.maxWait = wait.isNegative() ? Duration.ZERO : wait;
	}

	/** The longest a container waits for running handlers when stopping, whatever its settings. */
	Duration maxWait() {
		return this.maxWait;
	}

	/**
	 * Stops the containers, each on a thread of its own, without blocking the caller.
	 * @param callback what runs once all have stopped
	 */
	void stop(List<DelayedTaskContainer> containers, Runnable callback) {
		CompletableFuture
			.allOf(containers.stream()
				.map((container) -> CompletableFuture.runAsync(() -> container.stop(this.maxWait),
						this.threads.threadPerTask("baton-queue-stop-" + container.getQueueName())))
				.toArray(CompletableFuture[]::new))
			.whenComplete((result, ex) -> callback.run());
	}

}
