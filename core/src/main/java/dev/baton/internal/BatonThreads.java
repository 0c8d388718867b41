package dev.baton.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ReflectionUtils;

/**
 * Makes every thread Baton runs its own work on. Each thread is named after that work, so that a
 * thread dump says which piece of Baton it serves, and is a daemon where it is a platform thread,
 * so that none keeps the JVM alive. The threads come from the {@link ThreadFactory} an application
 * gives a builder (virtual threads, for instance), with their name set on what it returns; without
 * one they are Baton's own platform threads ({@link #PLATFORM}).
 *
 * <p>Work that must run on time whatever the application's threads do (renewing a lease,
 * extending a visibility) asks for {@link #platform()}: never a virtual thread, which could wait
 * for a carrier thread that pinned virtual threads hold.
 */
public final class BatonThreads {

	/** Baton's own named daemon platform threads. */
	public static final BatonThreads PLATFORM = new BatonThreads(null, false);

	/** {@code Thread.isVirtual()}, from Java 21 on; before it every thread is a platform thread. */
	private static final @Nullable Method IS_VIRTUAL = ReflectionUtils.findMethod(Thread.class, "isVirtual");

	private final @Nullable ThreadFactory factory;

	/** Whether a virtual thread from the factory is replaced by a platform thread. */
	private final boolean platformOnly;

	private BatonThreads(@Nullable ThreadFactory factory, boolean platformOnly) {
		this.factory = factory;
		this.platformOnly = platformOnly;
	}

	/**
	 * Threads from a factory.
	 * @param factory the factory, or {@code null} for {@link #PLATFORM}
	 * @return the threads
	 */
	public static BatonThreads of(@Nullable ThreadFactory factory) {
		return (factory != null) ? new BatonThreads(factory, false) : PLATFORM;
	}

	/**
	 * Whether these threads come from a factory an application gave, rather than being
	 * {@link #PLATFORM Baton's own}.
	 * @return whether a factory makes them
	 */
	public boolean hasFactory() {
		return this.factory != null;
	}

	/**
	 * These threads, but never virtual ones: a virtual thread from the factory is replaced by one
	 * of Baton's platform threads, a platform thread from it is kept.
	 * @return the threads
	 */
	public BatonThreads platform() {
		return (this.factory == null || this.platformOnly) ? this : new BatonThreads(this.factory, true);
	}

	/**
	 * A new thread, not started.
	 * @param name the thread's name
	 * @param task what it runs
	 * @return the thread, or {@code null} if the factory refused to make one
	 */
	public @Nullable Thread newThread(String name, Runnable task) {
		Thread thread = (this.factory != null) ? this.factory.newThread(task) : new Thread(task);
		if (thread == null) {
			return null;
		}
		if (this.platformOnly && isVirtual(thread)) {
			thread = new Thread(task);
		}
		thread.setName(name);
		if (!thread.isDaemon()) {
			// Only platform threads can be non-daemon: virtual threads always are.
			thread.setDaemon(true);
		}
		return thread;
	}

	/**
	 * Starts a new thread.
	 * @param name the thread's name
	 * @param task what it runs
	 * @return the thread, started
	 * @throws RejectedExecutionException if the factory refused to make a thread
	 */
	public Thread start(String name, Runnable task) {
		Thread thread = newThread(name, task);
		if (thread == null) {
			throw new RejectedExecutionException("Thread factory made no thread '" + name + "'");
		}
		thread.start();
		return thread;
	}

	/**
	 * An executor that runs each task on a new thread of its own, for work that must not keep the
	 * JVM alive nor block a caller that gave up waiting for it (a Redis call during shutdown).
	 * @param name the threads' name
	 * @return the executor
	 */
	public Executor threadPerTask(String name) {
		return (task) -> start(name, task);
	}

	/**
	 * One thread that runs tasks in the order they were given.
	 * @param name the thread's name
	 * @return the executor
	 */
	public ExecutorService singleThread(String name) {
		return Executors.newSingleThreadExecutor(factory(name));
	}

	/**
	 * One thread that runs tasks when they are due.
	 * @param name the thread's name
	 * @return the executor
	 */
	public ScheduledExecutorService scheduled(String name) {
		return Executors.newSingleThreadScheduledExecutor(factory(name));
	}

	/**
	 * A thread for each task that finds none idle, for tasks that may block on Redis and must not
	 * wait behind each other; idle threads end after {@code keepAlive}.
	 * @param name the threads' name
	 * @param keepAlive how long a thread waits idle for another task
	 * @return the executor
	 */
	public ExecutorService cached(String name, Duration keepAlive) {
		return new ThreadPoolExecutor(0, Integer.MAX_VALUE, keepAlive.toMillis(), TimeUnit.MILLISECONDS,
				new SynchronousQueue<>(), factory(name));
	}

	/**
	 * At most one thread, that runs tasks in the order they were given and ends after
	 * {@code keepAlive} without one (the next task starts another), for signals that must leave
	 * the thread that received them (a pub/sub message, on the Redis client's event loop). Once
	 * it is shut down, tasks still given to it are dropped: they signal what is closed.
	 * @param name the thread's name
	 * @param keepAlive how long the thread waits idle for another task
	 * @return the executor
	 */
	public ExecutorService signals(String name, Duration keepAlive) {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, keepAlive.toMillis(), TimeUnit.MILLISECONDS,
				new LinkedBlockingQueue<>(), factory(name), new ThreadPoolExecutor.DiscardPolicy());
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * A factory of these threads, named {@code prefix} followed by 1, 2, and so on in the order
	 * they are made.
	 * @param prefix the start of the threads' names
	 * @return the factory
	 */
	public ThreadFactory numbered(String prefix) {
		AtomicInteger made = new AtomicInteger();
		return (task) -> newThread(prefix + made.incrementAndGet(), task);
	}

	/**
	 * A factory of these threads, all with the same name.
	 * @param name the threads' name
	 * @return the factory
	 */
	public ThreadFactory factory(String name) {
		return (task) -> newThread(name, task);
	}

	/**
	 * Waits for a thread to end, at most until {@code deadline}; an interrupt ends the wait and
	 * is kept.
	 * @param thread the thread, or {@code null} for none
	 * @param deadline as {@link System#nanoTime()}
	 */
	public static void joinUntil(@Nullable Thread thread, long deadline) {
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

	/**
	 * Whether a thread is a virtual thread; always {@code false} before Java 21.
	 * @param thread the thread
	 * @return whether it is virtual
	 */
	public static boolean isVirtual(Thread thread) {
		return IS_VIRTUAL != null && Boolean.TRUE.equals(ReflectionUtils.invokeMethod(IS_VIRTUAL, thread));
	}

}
