package dev.baton.queue.listener;

import java.util.concurrent.Executor;

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

}
