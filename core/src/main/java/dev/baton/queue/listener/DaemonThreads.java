package dev.baton.queue.listener;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Daemon threads for work that must not keep the JVM alive nor block a caller that gave up
 * waiting for it (a Redis call during shutdown).
 */
final class DaemonThreads {

	private DaemonThreads() {
	}

	static Thread start(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	/** An executor that runs each task on a new daemon thread of this name. */
	static Executor named(String name) {
		return (task) -> start(name, task);
	}

	/**
	 * Waits for a thread to end, at most until {@code deadline} ({@link System#nanoTime()}); an
	 * interrupt ends the wait and is kept.
	 */
	static void joinUntil(@Nullable Thread thread, long deadline) {
		if (thread == null) {
			return;
		}
		try {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
