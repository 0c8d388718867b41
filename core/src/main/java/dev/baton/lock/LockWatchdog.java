package dev.baton.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Renews the leases taken without a lease time, every third of the lease, all in one pipeline;
 * a lease whose lock is found expired or taken is handed to {@code onLost}.
 */
final class LockWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "baton-lock-watchdog");
		thread.setDaemon(true);
		return thread;
	});

	private final LockCommands commands;

	private final long leaseMillis;

	private final Supplier<List<RedisLockLease>> renewed;

	private final Consumer<RedisLockLease> onLost;

	LockWatchdog(LockCommands commands, Duration leaseTime, Supplier<List<RedisLockLease>> renewed,
			Consumer<RedisLockLease> onLost) {
		this.commands = commands;
		this.leaseMillis = leaseTime.toMillis();
		this.renewed = renewed;
		this.onLost = onLost;
		long period = Math.max(this.leaseMillis / 3, 1);
		this.scheduler.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
	}

	void renewAll() {
		List<RedisLockLease> leases = this.renewed.get();
		if (leases.isEmpty()) {
			return;
		}
		try {
			List<Boolean> held = this.commands.extendAll(leases.stream().map(RedisLockLease::keys).toList(),
					leases.stream().map(RedisLockLease::owner).toList(), this.leaseMillis);
			for (int i = 0; i < leases.size(); i++) {
				if (!held.get(i)) {
					this.onLost.accept(leases.get(i));
				}
			}
		}
		catch (RuntimeException ex) {
			// Redis unreachable: try again next period; the leases run out if it stays away.
			logger.warn("Could not renew " + leases.size() + " lock lease(s)", ex);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
