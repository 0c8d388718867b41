package dev.baton.autoconfigure.lock;

import java.util.concurrent.CompletableFuture;

import dev.baton.lock.LockManagerStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Lets a graceful shutdown wait for the code that still holds locks. It stops after Spring's
 * task executors and schedulers (whose phase waits for running tasks) and after the
 * {@code @DelayedTask} containers, and before the Redis connection factory (phase 0), so that the
 * watchdog keeps renewing a lock whose holder still runs. The phase ends when every lock has been
 * released by its holder, or when the context's shutdown budget for the phase
 * ({@code spring.lifecycle.timeout-per-shutdown-phase}) runs out; a lock still held then is left
 * to expire with its lease, never deleted under its running holder. Once nothing is held, the
 * lock managers are closed, while the connection is still up. The lock managers are the
 * {@link LockManagerStatus} beans; those that are {@link AutoCloseable} are closed.
 */
class LockManagerShutdown implements SmartLifecycle {

	/** Just after the executors' and schedulers' phase. */
	static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE - 1024;

	private static final Log logger = LogFactory.getLog(LockManagerShutdown.class);

	private final ObjectProvider<LockManagerStatus> lockManagers;

	private volatile boolean running;

	LockManagerShutdown(ObjectProvider<LockManagerStatus> lockManagers) {
		this.lockManagers = lockManagers;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public void stop(Runnable callback) {
		this.running = false;
		CompletableFuture.allOf(this.lockManagers.orderedStream()
			.map(LockManagerStatus::allReleased)
			.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> {
				// Nothing is held: close while the connection is still up, so that the waiters unsubscribe cleanly.
				this.lockManagers.orderedStream().forEach(LockManagerShutdown::close);
				callback.run();
			});
	}

	private static void close(LockManagerStatus lockManager) {
		if (lockManager instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				logger.warn("Could not close lock manager " + lockManager, ex);
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
