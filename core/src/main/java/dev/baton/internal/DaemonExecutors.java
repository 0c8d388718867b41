package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Executors of Baton's own named daemon threads, so that none keeps the JVM alive and a thread
 * dump says which piece of Baton each thread works for.
 */
public final class DaemonExecutors {

	private DaemonExecutors() {
	}

	/**
	 * One thread that runs tasks in the order they were given.
	 * @param name the thread's name
	 * @return the executor
	 */
	public static ExecutorService singleThread(String name) {
		return Executors.newSingleThreadExecutor(named(name));
	}

	/**
	 * One thread that runs tasks when they are due.
	 * @param name the thread's name
	 * @return the executor
	 */
	public static ScheduledExecutorService scheduled(String name) {
		return Executors.newSingleThreadScheduledExecutor(named(name));
	}

	/**
	 * A thread for each task that finds none idle, for tasks that may block on Redis and must not
	 * wait behind each other; idle threads end after {@code keepAlive}.
	 * @param name the threads' name
	 * @param keepAlive how long a thread waits idle for another task
	 * @return the executor
	 */
	public static ExecutorService cached(String name, Duration keepAlive) {
		return new ThreadPoolExecutor(0, Integer.MAX_VALUE, keepAlive.toMillis(), TimeUnit.MILLISECONDS,
				new SynchronousQueue<>(), named(name));
	}

	private static ThreadFactory named(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
