package dev.baton.benchmarks.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import dev.baton.benchmarks.support.Samples;
import org.jspecify.annotations.Nullable;

/**
 * Threads that acquire and release locks between a start and a deadline (both
 * {@link System#nanoTime()} values, shared with a child JVM), counting pairs and hand-offs.
 */
final class LockWorkload {

	/** How long threads still waiting at the deadline may take to finish before the run is declared hung. */
	private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(60);

	private LockWorkload() {
	}

	/**
	 * Each thread locks and unlocks names of its own, chosen at random: no contention.
	 * @return the outcome of every thread together
	 */
	static Outcome uncontended(LockClient client, int threads, String keyPrefix, long start, long deadline) {
		return run(threads, start, deadline, (index) -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long pairs = 0;
			while (System.nanoTime() < deadline) {
				Lock lock = client.lockFor(keyPrefix + index + ":" + random.nextInt(1_000_000));
				lock.lock();
				lock.unlock();
				pairs++;
			}
			return new Outcome(pairs, new Samples());
		});
	}

	/**
	 * Every thread locks the same name; pairs are counted until the deadline, and each thread
	 * waiting then finishes its acquisition before stopping.
	 * @return the outcome of every thread together
	 */
	static Outcome contended(LockClient client, int threads, String key, HandoffBoard board, long ownerBase,
			long start, long deadline) {
		return run(threads, start, deadline, (index) -> {
			long owner = ownerBase + index + 1;
			Samples handoffs = new Samples();
			long pairs = 0;
			while (true) {
				Lock lock = client.lockFor(key);
				lock.lock();
				long now = System.nanoTime();
				long handoff = board.acquired(owner, now);
				boolean inTime = now < deadline;
				if (inTime) {
					pairs++;
					if (handoff >= 0) {
						handoffs.add(handoff);
					}
				}
				board.releasing(owner);
				lock.unlock();
				if (!inTime) {
					return new Outcome(pairs, handoffs);
				}
			}
		});
	}

	private static Outcome run(int threads, long start, long deadline, Worker worker) {
		List<Thread> running = new ArrayList<>();
		List<Outcome> outcomes = new ArrayList<>();
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		for (int i = 0; i < threads; i++) {
			int index = i;
			Thread thread = new Thread(() -> {
				LockSupport.parkNanos(start - System.nanoTime());
				try {
					Outcome outcome = worker.work(index);
					synchronized (outcomes) {
						outcomes.add(outcome);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "bench-lock-" + i);
			thread.setDaemon(true);
			thread.start();
			running.add(thread);
		}
		long giveUp = deadline + GRACE_NANOS;
		for (Thread thread : running) {
			try {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(giveUp - System.nanoTime())));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for lock threads", ex);
			}
			if (thread.isAlive()) {
				throw new IllegalStateException(thread.getName() + " still has not finished 60 s after the deadline");
			}
		}
		Throwable thrown = failure.get();
		if (thrown != null) {
			throw new IllegalStateException("A lock thread failed: " + thrown, thrown);
		}
		Samples handoffs = new Samples();
		long pairs = 0;
		for (Outcome outcome : outcomes) {
			pairs += outcome.pairs();
			handoffs.addAll(outcome.handoffs());
		}
		return new Outcome(pairs, handoffs);
	}

	@FunctionalInterface
	private interface Worker {

		Outcome work(int index) throws Exception;

	}

	/**
	 * What threads did in one run.
	 * @param pairs acquire+release pairs whose acquisition came before the deadline
	 * @param handoffs hand-off latencies in nanoseconds
	 */
	record Outcome(long pairs, Samples handoffs) {

		Outcome plus(Outcome other) {
			Samples all = new Samples();
			all.addAll(this.handoffs);
			all.addAll(other.handoffs);
			return new Outcome(this.pairs + other.pairs, all);
		}

	}

}
