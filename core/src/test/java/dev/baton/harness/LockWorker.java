package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLock;
import dev.baton.lock.redis.RedisLockManager;

/**
 * One thread of an instance: takes a random lock of a few names, with a random wait, through
 * {@link LockLease} or {@link RedisLock}, and in its critical section writes to the fenced
 * register and stands in the unfenced counter. Loops until the end of the fault phase, bounded
 * in count as well.
 */
final class LockWorker implements Runnable {

	private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(500),
			Duration.ofSeconds(1) };

	private static final int MAX_ROUNDS = 100_000;

	private static final Duration FIXED_LEASE = Duration.ofMillis(1500);

	private final String holderPrefix;

	private final int instance;

	/** The instance's lock manager at the time of each call: another one after a restart. */
	private final Supplier<RedisLockManager> locks;

	private final List<String> names;

	private final LockWorkload workload;

	private final long untilMillis;

	private final Random random;

	private int round;

	/** The longest rest between two rounds; 0 for none (the same draws as before rests existed). */
	private int maxRestMillis;

	/** The call of this round, marked when a reply of it is lost. */
	private LockUse use;

	LockWorker(String holderPrefix, int instance, Supplier<RedisLockManager> locks, List<String> names,
			LockWorkload workload, long untilMillis, long seed) {
		this.holderPrefix = holderPrefix;
		this.instance = instance;
		this.locks = locks;
		this.names = names;
		this.workload = workload;
		this.untilMillis = untilMillis;
		this.random = new Random(seed);
	}

	/**
	 * Rests up to {@code maxRestMillis} between rounds, so that callers in another JVM, whom a
	 * worker looping at once would keep from the lock, get it too.
	 */
	LockWorker restingUpTo(int maxRestMillis) {
		this.maxRestMillis = maxRestMillis;
		return this;
	}

	@Override
	public void run() {
		while (this.workload.timeline.now() < this.untilMillis && this.round++ < MAX_ROUNDS) {
			String name = this.names.get(this.random.nextInt(this.names.size()));
			Duration wait = WAITS[this.random.nextInt(WAITS.length)];
			// Mostly short sections; one in ten outlasts a renewal period or two.
			long holdMillis = (this.random.nextInt(10) == 0) ? 500 + this.random.nextInt(1500) : this.random.nextInt(50);
			this.use = this.workload.begin(this.holderPrefix + "/" + this.round, name, this.instance);
			try {
				if (this.random.nextBoolean()) {
					withLease(name, wait, holdMillis);
				}
				else {
					withLock(name, wait, holdMillis);
				}
			}
			catch (LockUnavailableException ex) {
				// Redis out of reach: a caller tries again, a little later.
				this.use.replyLost = true;
				this.workload.unavailable.incrementAndGet();
				Pause.millis(20);
			}
			catch (InterruptedException ex) {
				// tryLock interrupted: it holds nothing, which the checks after the run see.
				this.workload.timeline.record(name, this.use.caller + ": tryLock interrupted");
			}
			catch (Exception ex) {
				this.workload.violations.add(name, "lock calls fail only with LockUnavailableException",
						"unexpected " + ex);
			}
			finally {
				this.workload.end(this.use);
			}
			if (this.maxRestMillis > 0) {
				Pause.millis(this.random.nextInt(this.maxRestMillis));
			}
		}
	}

	private void withLease(String name, Duration wait, long holdMillis) throws Exception {
		// One lease in four has a lease time of its own, not renewed: a long section outlives it.
		Duration leaseTime = (this.random.nextInt(4) == 0) ? FIXED_LEASE : null;
		RedisLockManager manager = this.locks.get();
		Optional<LockLease> acquired = this.workload.bounds.call("tryAcquire", name, wait,
				() -> manager.tryAcquire(name, wait, leaseTime));
		if (acquired.isEmpty()) {
			this.workload.refused(this.use, manager);
			return;
		}
		this.use.granted(this.workload.timeline.now());
		LockLease lease = acquired.get();
		try {
			Long token = token(name, lease::fencingToken);
			if (token != null) {
				critical(name, token, holdMillis, lease::isValid, manager);
			}
		}
		finally {
			this.workload.bounds.call("release", name, Duration.ZERO, () -> {
				this.workload.releaseQuietly(this.use, lease::release);
				return null;
			});
		}
	}

	private void withLock(String name, Duration wait, long holdMillis) throws Exception {
		RedisLockManager manager = this.locks.get();
		RedisLock lock = manager.getLock(name);
		if (!this.workload.bounds.call("tryLock", name, wait, () -> lock.tryLock(wait, null))) {
			this.workload.refused(this.use, manager);
			return;
		}
		this.use.granted(this.workload.timeline.now());
		Hold hold = null;
		try {
			Long token = token(name, lock::getFencingToken);
			if (token != null) {
				hold = critical(name, token, holdMillis, lock::isHeldByCurrentThread, manager);
			}
		}
		finally {
			Hold held = hold;
			this.workload.bounds.call("unlock", name, Duration.ZERO, () -> {
				try {
					this.workload.releaseQuietly(this.use, lock::unlock);
				}
				catch (IllegalMonitorStateException ex) {
					// The documented report of a lost lock to a thread-owned holder.
					if (held != null) {
						held.lostAtEnd = true;
					}
					this.workload.timeline.record(name, "unlock refused: " + ex.getMessage());
				}
				return null;
			});
		}
	}

	/** The fencing token, or {@code null} if the lock was lost before one was issued or Redis did not answer. */
	private Long token(String name, TokenCall call) throws Exception {
		try {
			return this.workload.bounds.call("fencingToken", name, Duration.ZERO, call::token);
		}
		catch (IllegalStateException | IllegalMonitorStateException ex) {
			// Lost before a token was issued (a thread-owned lock may say that it is no longer held).
			this.workload.timeline.record(name, "lost before a token was issued: " + ex.getMessage());
			return null;
		}
		catch (LockUnavailableException ex) {
			this.use.replyLost = true;
			this.workload.unavailable.incrementAndGet();
			return null;
		}
	}

	private Hold critical(String name, long token, long holdMillis, BooleanSupplier valid, RedisLockManager manager) {
		return this.workload.section(
				new Hold(this.holderPrefix + "/" + this.round, name, token, this.workload.timeline.now(), manager),
				holdMillis, valid);
	}

	private interface TokenCall {

		long token() throws Exception;

	}

}
