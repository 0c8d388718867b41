package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;

import dev.baton.benchmarks.support.Samples;

/**
 * Consumer side of a queue run: counts deliveries per task id (to find missing and duplicate
 * tasks), and records each task's lateness on its first delivery. Payloads are
 * {@code <id>:<due time in epoch microseconds>}.
 */
final class TaskTracker implements TaskHandler {

	private final AtomicIntegerArray deliveries;

	private final long[] latenessMicros;

	private final AtomicInteger distinct = new AtomicInteger();

	private final LongAccumulator lastHandledNanos = new LongAccumulator(Math::max, Long.MIN_VALUE);

	TaskTracker(int tasks) {
		this.deliveries = new AtomicIntegerArray(tasks);
		this.latenessMicros = new long[tasks];
	}

	static String payload(int id, long dueMicros) {
		return id + ":" + dueMicros;
	}

	/** The wall clock in microseconds, the clock of due times in payloads. */
	static long wallMicros() {
		Instant now = Instant.now();
		return TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + now.getNano() / 1000;
	}

	@Override
	public void handle(String payload) {
		long now = wallMicros();
		int separator = payload.indexOf(':');
		int id = Integer.parseInt(payload, 0, separator, 10);
		if (this.deliveries.incrementAndGet(id) == 1) {
			this.latenessMicros[id] = now - Long.parseLong(payload, separator + 1, payload.length(), 10);
			this.distinct.incrementAndGet();
		}
		this.lastHandledNanos.accumulate(System.nanoTime());
	}

	/**
	 * Waits until every task was handled at least once.
	 * @param deadlineNanos {@link System#nanoTime()} at which to give up
	 * @return whether all were handled
	 */
	boolean awaitAll(long deadlineNanos) {
		while (this.distinct.get() < this.deliveries.length()) {
			if (System.nanoTime() > deadlineNanos) {
				return false;
			}
			LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
		}
		return true;
	}

	int handled() {
		return this.distinct.get();
	}

	int missing() {
		return this.deliveries.length() - this.distinct.get();
	}

	int duplicates() {
		int duplicates = 0;
		for (int i = 0; i < this.deliveries.length(); i++) {
			duplicates += Math.max(0, this.deliveries.get(i) - 1);
		}
		return duplicates;
	}

	long lastHandledNanos() {
		return this.lastHandledNanos.get();
	}

	/** Lateness in microseconds of every task handled so far. */
	Samples lateness() {
		Samples samples = new Samples();
		for (int i = 0; i < this.deliveries.length(); i++) {
			if (this.deliveries.get(i) > 0) {
				samples.add(this.latenessMicros[i]);
			}
		}
		return samples;
	}

}
