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
 * violation whatever it returned or threw; the stack of the calling thread, taken while it was
 * over its bound, goes with the violation, so that a report says where the time went.
 */
final class CallBounds {

	private static final int STACK_FRAMES = 30;

	private final Duration commandTimeout;

	private final Duration slack;

	private final Violations violations;

	private final Timeline timeline;

	private final AtomicLong calls = new AtomicLong();

	private final AtomicLong longestOverWaitMillis = new AtomicLong();

	private final Map<Thread, Running> running = new ConcurrentHashMap<>();

	CallBounds(Duration commandTimeout, Duration slack, Violations violations, Timeline timeline) {
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
		long bound = start + wait.toMillis() + this.commandTimeout.plus(this.slack).toMillis();
		Running now = new Running(bound);
		this.running.put(Thread.currentThread(), now);
		try {
			return call.run();
		}
		finally {
			this.running.remove(Thread.currentThread());
			long took = this.timeline.now() - start;
			this.calls.incrementAndGet();
			this.longestOverWaitMillis.accumulateAndGet(took - wait.toMillis(), Math::max);
			if (this.timeline.now() > bound) {
				this.violations.add(start, subject, "every lock command has Baton's own timeout",
						Thread.currentThread().getName() + ": " + what + " took " + took + " ms, more than its wait of "
								+ wait.toMillis() + " ms plus the command timeout " + this.commandTimeout.toMillis()
								+ " ms and " + this.slack.toMillis() + " ms of slack"
								+ ((now.stack != null) ? "; its stack once over the bound:\n" + now.stack : ""));
			}
		}
	}

	/** Takes the stack of every call over its bound, once: called by {@link #watch()}'s thread. */
	void sample() {
		long now = this.timeline.now();
		this.running.forEach((thread, call) -> {
			if (call.stack == null && now > call.bound) {
				call.stack = Arrays.stream(thread.getStackTrace()).limit(STACK_FRAMES)
					.map((frame) -> "        at " + frame)
					.collect(Collectors.joining("\n"));
			}
		});
	}

	/** Starts a daemon thread that samples every 50 ms until {@code untilMillis}. */
	void watch(long untilMillis) {
		Thread watcher = new Thread(() -> {
			while (this.timeline.now() < untilMillis) {
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

	long calls() {
		return this.calls.get();
	}

	/** The most any call took beyond the wait it asked for. */
	long longestOverWaitMillis() {
		return this.longestOverWaitMillis.get();
	}

	/** A call that may throw. */
	interface Call<T> {

		T run() throws Exception;

	}

	private static final class Running {

		final long bound;

		volatile String stack;

		Running(long bound) {
			this.bound = bound;
		}

	}

}
