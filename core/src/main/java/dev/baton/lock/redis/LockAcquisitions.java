package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.internal.Durations;
import dev.baton.internal.ObservationSettings;
import dev.baton.lock.LockRequest;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultLockAcquisitionObservationConvention;
import dev.baton.observation.LockAcquisitionContext;
import dev.baton.observation.LockAcquisitionObservationConvention;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * How a lock manager acquires locks, each acquisition observed (a span with tracing, the
 * {@code baton.lock.acquire} timer) and counted: a first attempt, or a place in line behind this
 * JVM's waiters ({@link LockWaiters}), under an owner id of its own; and later the fencing token
 * of a lease that took a free lock without one. The manager checks names and that it is open.
 */
final class LockAcquisitions {

	/**
	 * How long the last fencing token of a name outlives its lock. Tokens stay strictly
	 * increasing across that gap even if the Redis server's clock steps back.
	 */
	static final Duration FENCE_MEMORY = Duration.ofMinutes(10);

	/** The manager whose leases these acquisitions grant, which they are released through. */
	private final RedisLockManager manager;

	private final LockCommands commands;

	private final LockWaiters waiters;

	private final LeaseBookkeeping leases;

	private final LockMetrics metrics;

	private final MetricGroups metricGroups;

	private final ObservationSettings<LockAcquisitionObservationConvention> observations;

	private final String keyPrefix;

	/** The lease of locks taken without a lease time, which the watchdog renews. */
	private final Duration leaseTime;

	/**
	 * Start of this manager's owner ids: its instance name, so that waiters can say who holds a
	 * lock, and a random part, so that no other instance can pass for an owner.
	 */
	private final String ownerPrefix;

	private final AtomicLong acquisitions = new AtomicLong();

	LockAcquisitions(RedisLockManager manager, LockCommands commands, LockWaiters waiters, LeaseBookkeeping leases,
			LockMetrics metrics, MetricGroups metricGroups,
			ObservationSettings<LockAcquisitionObservationConvention> observations, String keyPrefix,
			Duration leaseTime, String ownerPrefix) {
		this.manager = manager;
		this.commands = commands;
		this.waiters = waiters;
		this.leases = leases;
		this.metrics = metrics;
		this.metricGroups = metricGroups;
		this.observations = observations;
		this.keyPrefix = keyPrefix;
		this.leaseTime = leaseTime;
		this.ownerPrefix = ownerPrefix;
	}

	/**
	 * The observed part of {@link RedisLockManager#acquire}, once the manager checked the name and
	 * that it is open.
	 */
	@Nullable RedisLockLease acquire(LockRequest request, boolean interruptible) throws InterruptedException {
		long start = System.nanoTime();
		LockKeys keys = LockKeys.of(this.keyPrefix, request.name());
		long waitNanos = Durations.toNanosSaturated(request.waitTime());
		String tag = this.metricGroups.tag(request.group());
		Observation observation = BatonObservation.LOCK_ACQUISITION
			.observation(this.observations.convention(), DefaultLockAcquisitionObservationConvention.INSTANCE,
					() -> new LockAcquisitionContext(request.name(), tag), this.observations.registry())
			.start();
		try {
			LockAttempt attempt = new LockAttempt(this.manager, this.commands, this.leases.held(), this.leaseTime,
					nextOwner(), request, keys, waitNanos);
			// A newcomer that may wait gets in line behind this JVM's waiters instead of barging.
			boolean inLine = waitNanos > 0 && this.waiters.isAwaited(keys.channel());
			RedisLockLease lease = inLine ? null : attempt.first();
			if (lease == null && waitNanos > 0) {
				lease = awaitInLine(attempt, keys, waitNanos - (System.nanoTime() - start), interruptible);
			}
			if (lease != null) {
				this.metrics.acquired(tag);
			}
			if (observation.getContext() instanceof LockAcquisitionContext context) {
				if (lease != null) {
					long token = lease.issuedToken();
					context.acquired((token != 0) ? token : null);
				}
				else {
					context.timedOut();
				}
			}
			return lease;
		}
		catch (Throwable ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	private @Nullable RedisLockLease awaitInLine(LockAttempt attempt, LockKeys keys, long waitNanos,
			boolean interruptible) throws InterruptedException {
		RedisLockLease lease;
		try {
			lease = this.waiters.await(keys.channel(), waitNanos, interruptible, attempt);
		}
		catch (InterruptedException | RuntimeException ex) {
			attempt.abandon();
			throw ex;
		}
		return (lease != null) ? lease : attempt.takenUnawares();
	}

	/** A new owner id: one per acquisition, and one per restored lease. */
	String nextOwner() {
		return this.ownerPrefix + this.acquisitions.incrementAndGet();
	}

	/**
	 * Issues the fencing token of a lease that took its lock without one; marks the lease lost if
	 * Redis says that it no longer holds the lock.
	 * @return the token, or 0 if the lease no longer held the lock
	 */
	long issueToken(RedisLockLease lease) {
		long token = this.commands.issueToken(lease.keys(), lease.owner(), fenceMillis(lease.leaseMillis()));
		if (token == 0) {
			this.leases.lost(lease, "it was expired or taken when its fencing token was asked for");
		}
		return token;
	}

	/** How long a lock's fence key outlives a lease of {@code leaseMillis}. */
	static long fenceMillis(long leaseMillis) {
		return leaseMillis + FENCE_MEMORY.toMillis();
	}

}
