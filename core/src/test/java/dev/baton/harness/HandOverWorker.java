package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;

/**
 * One thread of an instance that takes a lock in one place and finishes in another, as a web
 * request that a queued job completes: it acquires a {@link LockLease}, does the first part of
 * its critical section, {@linkplain LockLease#handOver() hands the lease over} and
 * {@linkplain RedisLockManager#restore restores} the token on a random instance (its own or
 * another), which does the second part and releases. Both parts write to the fenced register with
 * the one fencing token and stand in the unfenced counter; now and then the token is restored a
 * second time, which must give an invalid lease ("a token restores once").
 */
final class HandOverWorker implements Runnable {

	private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(500) };

	private static final int MAX_ROUNDS = 100_000;

	private final String holderPrefix;

	private final int instance;

	/** Every instance's lock manager at the time of each call: the restoring one is picked at random. */
	private final List<Supplier<RedisLockManager>> managers;

	private final List<String> names;

	private final LockWorkload workload;

	private final long untilMillis;

	private final Random random;

	private int round;

	HandOverWorker(String holderPrefix, int instance, List<Supplier<RedisLockManager>> managers, List<String> names,
			LockWorkload workload, long untilMillis, long seed) {
		this.holderPrefix = holderPrefix;
		this.instance = instance;
		this.managers = managers;
		this.names = names;
		this.workload = workload;
		this.untilMillis = untilMillis;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		while (this.workload.timeline.now() < this.untilMillis && this.round++ < MAX_ROUNDS) {
			String name = this.names.get(this.random.nextInt(this.names.size()));
			String holder = this.holderPrefix + "/" + this.round;
			LockUse use = this.workload.begin(holder, name, this.instance);
			try {
				handOverAndRestore(name, holder, use);
			}
			catch (LockUnavailableException ex) {
				// Redis out of reach: the lock may be held for an owner nobody knows until it runs out.
				use.replyLost = true;
				this.workload.unavailable.incrementAndGet();
				this.workload.timeline.record(name, holder + ": " + ex.getMessage());
				Pause.millis(20);
			}
			catch (InterruptedException ex) {
				this.workload.timeline.record(name, holder + ": interrupted");
			}
			catch (Exception ex) {
				this.workload.violations.add(name, "lock calls fail only with LockUnavailableException",
						"unexpected " + ex);
			}
			finally {
				this.workload.end(use);
			}
		}
	}

	private void handOverAndRestore(String name, String holder, LockUse use) throws Exception {
		Duration wait = WAITS[this.random.nextInt(WAITS.length)];
		RedisLockManager first = this.managers.get(this.instance).get();
		Optional<LockLease> acquired = this.workload.bounds.call("tryAcquire", name, wait,
				() -> first.tryAcquire(name, wait));
		if (acquired.isEmpty()) {
			this.workload.refused(use, first);
			return;
		}
		use.granted(this.workload.timeline.now());
		LockLease lease = acquired.get();
		LeaseToken token = null;
		try {
			long fencingToken = this.workload.bounds.call("fencingToken", name, Duration.ZERO, lease::fencingToken);
			Hold before = critical(new Hold(holder, name, fencingToken, this.workload.timeline.now(), first), lease);
			if (!before.lostAtEnd) {
				token = this.workload.bounds.call("handOver", name, Duration.ZERO, lease::handOver);
			}
		}
		catch (IllegalStateException | LeaseLostException ex) {
			// Lost before a fencing token was issued, or before the hand-over: nothing to hand over.
			this.workload.timeline.record(name, holder + ": lost before the hand-over: " + ex.getMessage());
		}
		finally {
			// Not handed over (lost, or a call unanswered): the lease is still this caller's to release.
			if (token == null) {
				release(name, use, lease);
			}
		}
		if (token == null) {
			return;
		}
		this.workload.handedOver.incrementAndGet();
		int target = this.random.nextInt(this.managers.size());
		restore(name, holder, token, target);
	}

	private void restore(String name, String holder, LeaseToken token, int target) throws Exception {
		RedisLockManager second = this.managers.get(target).get();
		LockUse use = this.workload.begin(holder + "/restored", name, target);
		try {
			LockLease restored;
			try {
				restored = this.workload.bounds.call("restore", name, Duration.ZERO, () -> second.restore(token));
			}
			catch (IllegalStateException ex) {
				// A restart closed that manager meanwhile: the token's lock runs out unrenewed.
				this.workload.timeline.record(name, holder + ": " + ex.getMessage());
				return;
			}
			catch (LockUnavailableException ex) {
				// The restore may have run: the target instance's owner may stay in the key, as documented.
				use.replyLost = true;
				throw ex;
			}
			if (!restored.isValid()) {
				// The lock ran out (or was taken) between the hand-over and now.
				this.workload.restoredInvalid.incrementAndGet();
				this.workload.timeline.record(name, holder + ": token found its lock gone on instance-" + target);
				return;
			}
			use.granted(this.workload.timeline.now());
			if (this.random.nextInt(4) == 0) {
				restoreAgain(name, token);
			}
			Hold after = Hold.restored(holder + "/restored", name, token.fencingToken(), this.workload.timeline.now(),
					second);
			try {
				long fencingToken = this.workload.bounds.call("fencingToken", name, Duration.ZERO, restored::fencingToken);
				if (fencingToken != token.fencingToken()) {
					this.workload.violations.add(name, LockChecks.FENCING, "the lease restored on instance-" + target
							+ " has fencing token " + fencingToken + ", the token handed over " + token.fencingToken());
				}
				critical(after, restored);
			}
			catch (LeaseLostException ex) {
				this.workload.timeline.record(name, holder + ": restored lease lost: " + ex.getMessage());
			}
			finally {
				release(name, use, restored);
			}
		}
		finally {
			this.workload.end(use);
		}
	}

	/** A second restore of a token restored once, on a random instance: it must give an invalid lease. */
	private void restoreAgain(String name, LeaseToken token) throws Exception {
		RedisLockManager other = this.managers.get(this.random.nextInt(this.managers.size())).get();
		try {
			LockLease again = this.workload.bounds.call("restore", name, Duration.ZERO, () -> other.restore(token));
			this.workload.restoredTwice.incrementAndGet();
			if (again.isValid()) {
				this.workload.violations.add(name, LockChecks.FENCING,
						"token " + token + " restored a second time, to a valid lease");
				again.release();
			}
		}
		catch (LockUnavailableException ex) {
			// Unanswered: it changed nothing (the lock has another owner than the token's), or it is judged by the counter.
			this.workload.unavailable.incrementAndGet();
		}
	}

	private Hold critical(Hold hold, LockLease lease) {
		return this.workload.section(hold, this.random.nextInt(50), lease::isValid);
	}

	private void release(String name, LockUse use, LockLease lease) throws Exception {
		this.workload.bounds.call("release", name, Duration.ZERO, () -> {
			this.workload.releaseQuietly(use, lease::release);
			return null;
		});
	}

}
