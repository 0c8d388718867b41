package dev.baton.harness;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;

/**
 * One thread of an instance calling the {@code @DistributedLock} methods of its proxied
 * {@link AnnotatedSections} with a random key and method, each call timed against its wait, its
 * body and one more command timeout for the release. Loops until the end of the fault phase.
 */
final class AnnotatedLockWorker implements Runnable {

	private static final int MAX_ROUNDS = 100_000;

	private static final String[] METHODS = { "once", "waiting", "fixedLease", "later" };

	private final String holderPrefix;

	private final int instance;

	/** The manager the advisor asks, read before each call for the liveness check. */
	private final Supplier<RedisLockManager> manager;

	private final AnnotatedSections sections;

	private final List<String> keys;

	private final LockWorkload workload;

	private final Duration commandTimeout;

	private final long untilMillis;

	private final Random random;

	private int round;

	AnnotatedLockWorker(String holderPrefix, int instance, Supplier<RedisLockManager> manager,
			AnnotatedSections sections, List<String> keys, LockWorkload workload, Duration commandTimeout,
			long untilMillis, long seed) {
		this.holderPrefix = holderPrefix;
		this.instance = instance;
		this.manager = manager;
		this.sections = sections;
		this.keys = keys;
		this.workload = workload;
		this.commandTimeout = commandTimeout;
		this.untilMillis = untilMillis;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		while (this.workload.timeline.now() < this.untilMillis && this.round++ < MAX_ROUNDS) {
			String key = this.keys.get(this.random.nextInt(this.keys.size()));
			String name = AnnotatedSections.NAME + ":" + key;
			long holdMillis = (this.random.nextInt(10) == 0) ? 500 + this.random.nextInt(1500) : this.random.nextInt(50);
			int method = this.random.nextInt(4);
			String holder = this.holderPrefix + "/" + this.round + "/" + METHODS[method];
			long waitMillis = switch (method) {
				case 0 -> 0;
				case 1 -> 500;
				case 2 -> 1000;
				default -> 100;
			};
			// The body, and the release: one more command after the acquisition.
			Duration bound = Duration.ofMillis(waitMillis + holdMillis).plus(this.commandTimeout);
			// The advisor asks the same supplier a moment later: after a restart in between, the
			// refusal is judged against the old manager's owners, and a ghost of the new one missed.
			RedisLockManager manager = this.manager.get();
			LockUse use = this.workload.begin(holder, name, this.instance);
			try {
				boolean ran = this.workload.bounds.call("@DistributedLock " + METHODS[method], name, bound, () -> {
					switch (method) {
						case 0 -> this.sections.once(key, holder, holdMillis);
						case 1 -> this.sections.waiting(key, holder, holdMillis);
						case 2 -> this.sections.fixedLease(key, holder, holdMillis, this.workload.timeline.now());
						default -> {
							// Skipped (not acquired), it completes with null.
							return join(this.sections.later(key, holder, holdMillis)) != null;
						}
					}
					return true;
				});
				if (!ran) {
					this.workload.refused(use, manager);
				}
			}
			catch (LockNotAcquiredException ex) {
				// Taken by another caller for the whole wait, or so Baton says: the key tells.
				this.workload.refused(use, manager);
			}
			catch (LockUnavailableException ex) {
				use.replyLost = true;
				this.workload.unavailable.incrementAndGet();
				this.workload.timeline.record(name, holder + ": " + ex.getMessage());
				Pause.millis(20);
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

	private static Boolean join(CompletableFuture<Boolean> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

}
