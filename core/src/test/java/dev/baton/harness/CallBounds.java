package dev.baton.harness;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Times the workload's calls against their documented bound: the wait a caller asked for plus
 * Baton's command timeout, and some slack for a loaded machine. A call over its bound is a
 * violation whatever it returned or threw. The stack of the calling thread is sampled from the
 * moment the call is late by a fraction of the slack, first and last sample kept, and goes with
 * the violation: a report says where the time went.
 *
 * <p>A caller may be {@linkplain #interruptIfInCall interrupted} while in a call, never in the
 * harness's own code around it: the call must keep the interrupt, ending with the thread's flag
 * set or with an {@link InterruptedException}. Each call clears the flag as it ends, so that
 * the harness's own Redis reads after it are not interrupted.
 */
final class CallBounds {

	private static final int STACK_FRAMES = 45;

	/** How late a call is when its stack starts to be sampled: well before it breaks its bound. */
	private static final long SUSPECT_AFTER_MILLIS = 300;

	private final String invariant;

	private final Duration commandTimeout;

	private final Duration slack;

	private final Violations violations;

	private final Timeline timeline;

	private final Stalls stalls;

	private final AtomicLong calls = new AtomicLong();

	private final AtomicLong longestOverWaitMillis = new AtomicLong();

	private final Map<Thread, Running> running = new ConcurrentHashMap<>();

	private volatile boolean watching = true;

	/** Guards interrupting a thread and the end of its call, so that an interrupt lands only in a call. */
	private final Object interrupting = new Object();

	private final AtomicLong interrupts = new AtomicLong();

	/**
	 * @param invariant the sentence of {@code docs/guarantees.md} that bounds these calls
	 */
	CallBounds(String invariant, Duration commandTimeout, Duration slack, Violations violations, Timeline timeline,
			Stalls stalls) {
		this.stalls = stalls;
		this.invariant = invariant;
		this.commandTimeout = commandTimeout;
		this.slack = slack;
		this.violations = violations;
		this.timeline = timeline;
	}

	/**
	 * Runs a call that may wait up to {@code wait}, and checks that it ended within its bound.
	 * @param what the call, for messages
	 * @param subject the lock or queue it concerns
	 */
	<T> T call(String what, String subject, Duration wait, Call<T> call) throws Exception {
		long start = this.timeline.now();
		long expected = start + wait.toMillis() + this.commandTimeout.toMillis();
		long bound = expected + this.slack.toMillis();
		Running now = new Running(expected + SUSPECT_AFTER_MILLIS);
		this.running.put(Thread.currentThread(), now);
		boolean threwInterrupted = false;
		try {
			return call.run();
		}
		catch (InterruptedException ex) {
			threwInterrupted = true;
			throw ex;
		}
		finally {
			boolean flagged;
			synchronized (this.interrupting) {
				this.running.remove(Thread.currentThread());
				flagged = Thread.interrupted();
			}
			if (now.interruptedAt >= 0 && !flagged && !threwInterrupted) {
				this.violations.add(now.interruptedAt, subject, LockChecks.INTERRUPTS_KEPT,
						Thread.currentThread().getName() + ": " + what + ", interrupted at " + now.interruptedAt
								+ " ms, returned with the thread's interrupt flag clear and without an InterruptedException");
			}
			long end = this.timeline.now();
			long took = end - start;
			// Time the whole JVM stood still is not the call's: Baton's timers stood still too.
			long stalled = this.stalls.within(start, end);
			if (end - stalled > bound) {
				// A stall that just ended may not be recorded yet: its ticker wakes after this thread.
				Pause.millis(60);
				stalled = this.stalls.within(start, end);
			}
			this.calls.incrementAndGet();
			this.longestOverWaitMillis.accumulateAndGet(took - stalled - wait.toMillis(), Math::max);
			if (end - stalled > bound) {
				this.violations.add(start, subject, this.invariant,
						Thread.currentThread().getName() + ": " + what + " took " + took + " ms ("
								+ stalled + " of them with the JVM standing still), more than its wait of "
								+ wait.toMillis() + " ms plus the command timeout " + this.commandTimeout.toMillis()
								+ " ms and " + this.slack.toMillis() + " ms of slack"
								+ ((now.firstStack != null) ? "; its stack when late:\n" + now.firstStack
										+ "\n      and last seen:\n" + now.lastStack : ""));
			}
		}
	}

	/**
	 * Interrupts the thread if it is in a call now, once per call.
	 * @return whether it did
	 */
	boolean interruptIfInCall(Thread thread) {
		synchronized (this.interrupting) {
			Running call = this.running.get(thread);
			if (call == null || call.interruptedAt >= 0) {
				return false;
			}
			call.interruptedAt = this.timeline.now();
			thread.interrupt();
			this.interrupts.incrementAndGet();
			return true;
		}
	}

	long interrupts() {
		return this.interrupts.get();
	}

	/** Samples the stack of every late call: called by {@link #watch(long)}'s thread. */
	void sample() {
		long now = this.timeline.now();
		this.running.forEach((thread, call) -> {
			if (now > call.suspectAt) {
				String stack = stackOf(thread);
				if (call.firstStack == null) {
					call.firstStack = stack;
				}
				call.lastStack = stack;
			}
		});
	}

	/** The top of a thread's stack, for a report. */
	static String stackOf(Thread thread) {
		return Arrays.stream(thread.getStackTrace()).limit(STACK_FRAMES)
			.map((frame) -> "        at " + frame)
			.collect(Collectors.joining("\n"));
	}

	/** Starts a daemon thread that samples every 50 ms until {@link #stopWatching()}. */
	void watch() {
		Thread watcher = new Thread(() -> {
			while (this.watching) {
				sample();
				try {
					Thread.sleep(50);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "harness-call-bounds");
		watcher.setDaemon(true);
		watcher.start();
	}

	void stopWatching() {
		this.watching = false;
	}

	long calls() {
		return this.calls.get();
	}

	/** The most any call took beyond the wait it asked for, without the JVM's stalls. */
	long longestOverWaitMillis() {
		return this.longestOverWaitMillis.get();
	}

	/** A call that may throw. */
	interface Call<T> {

		T run() throws Exception;

	}

	private static final class Running {

		final long suspectAt;

		volatile String firstStack;

		volatile String lastStack;

		/** When the harness interrupted the call's thread, ms from the run's start, or -1. */
		volatile long interruptedAt = -1;

		Running(long suspectAt) {
			this.suspectAt = suspectAt;
		}

	}

}
