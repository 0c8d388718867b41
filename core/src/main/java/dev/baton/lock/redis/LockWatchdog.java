package dev.baton.lock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Renews the leases taken without a lease time, every third of the lease, all sent at once.
 * A lease whose lock is found expired or taken, or that no renewal reached in time (Redis
 * unreachable), is handed to {@code onLost}; a lease taken with a lease time that has run out is
 * handed to {@code onExpired}.
 *
 * <p>Runs at a fixed rate, and every renewal is bounded by the lock command timeout (shorter than
 * the period), so a lease that ran out is noticed at most one period later, also while Redis does
 * not answer. Nothing it calls can stop it: every failure is logged and the next period comes.
 */
final class LockWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final ScheduledExecutorService scheduler;

	private final LockCommands commands;

	private final long leaseMillis;

	/** Bound of one renewal round: at most half the period, so that the next period starts on time. */
	private final Duration renewalTimeout;

	private final Supplier<Collection<RedisLockLease>> held;

	private final Consumer<RedisLockLease> onLost;

	private final Consumer<RedisLockLease> onExpired;

	private volatile @Nullable Instant lastRenewal;

	private volatile @Nullable Throwable lastFailure;

	LockWatchdog(BatonThreads threads, LockCommands commands, Duration leaseTime,
			Supplier<Collection<RedisLockLease>> held, Consumer<RedisLockLease> onLost,
			Consumer<RedisLockLease> onExpired) {
		// Platform even with virtual threads: a renewal must not wait for a carrier thread pinned virtual threads hold.
		this.scheduler = threads.platform().scheduled("baton-lock-watchdog");
		this.commands = commands;
		this.leaseMillis = leaseTime.toMillis();
		this.held = held;
		this.onLost = onLost;
		this.onExpired = onExpired;
		long period = period(leaseTime).toMillis();
		this.renewalTimeout = Duration.ofMillis(Math.max(Math.min(commands.timeout().toMillis(), period / 2), 1));
		this.scheduler.scheduleAtFixedRate(this::run, period, period, TimeUnit.MILLISECONDS);
	}

	/** How often the watchdog renews: a third of the lease. */
	static Duration period(Duration leaseTime) {
		return Duration.ofMillis(Math.max(leaseTime.toMillis() / 3, 1));
	}

	private void run() {
		try {
			renewAll();
		}
		catch (Throwable ex) {
			// An exception would cancel the schedule, and with it every renewal.
			logger.error("Lock watchdog run failed; it runs again next period", ex);
		}
	}

	void renewAll() {
		long now = System.nanoTime();
		List<RedisLockLease> renewed = new ArrayList<>();
		for (RedisLockLease lease : this.held.get()) {
			if (!lease.isRenewed()) {
				if (lease.hasRunOut(now)) {
					safely(this.onExpired, lease);
				}
			}
			else if (lease.hasRunOut(now)) {
				safely(this.onLost, lease);
			}
			else {
				renewed.add(lease);
			}
		}
		if (!renewed.isEmpty()) {
			renew(renewed);
		}
		else {
			// Nothing to renew: a failure of an earlier round no longer describes this watchdog.
			this.lastFailure = null;
		}
	}

	private void renew(List<RedisLockLease> leases) {
		long sentAt = System.nanoTime();
		List<@Nullable Boolean> held;
		try {
			held = this.commands.extendAll(leases.stream().map(RedisLockLease::keys).toList(),
					leases.stream().map(RedisLockLease::owner).toList(), this.leaseMillis, this.renewalTimeout);
		}
		catch (LockUnavailableException ex) {
			failed(leases.size(), ex);
			return;
		}
		int unanswered = 0;
		for (int i = 0; i < leases.size(); i++) {
			Boolean stillHeld = held.get(i);
			if (stillHeld == null) {
				unanswered++;
			}
			else if (stillHeld) {
				leases.get(i).renewed(sentAt);
			}
			else {
				safely(this.onLost, leases.get(i));
			}
		}
		if (unanswered > 0) {
			failed(unanswered, new LockUnavailableException("Redis did not renew " + unanswered + " lock lease(s)",
					new IllegalStateException("no reply within " + this.renewalTimeout.toMillis() + " ms")));
		}
		else {
			this.lastRenewal = Instant.now();
			this.lastFailure = null;
		}
	}

	private void failed(int leases, Throwable failure) {
		this.lastFailure = failure;
		// Try again next period; each lease is lost once it runs out unrenewed.
		logger.warn("Could not renew " + leases + " lock lease(s): " + failure.getMessage());
	}

	private static void safely(Consumer<RedisLockLease> action, RedisLockLease lease) {
		try {
			action.accept(lease);
		}
		catch (Throwable ex) {
			logger.error("Lock watchdog could not handle " + lease + "; it goes on with the others", ex);
		}
	}

	/** When the last renewal succeeded for every lease it sent, or {@code null} if none has. */
	@Nullable Instant lastRenewal() {
		return this.lastRenewal;
	}

	/** Why the last renewal failed, or {@code null} if it succeeded or no lease was left to renew. */
	@Nullable Throwable lastFailure() {
		return this.lastFailure;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
