package dev.baton.autoconfigure.lock;

import dev.baton.lock.RedisLockManager;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Releases the locks of the application's {@link RedisLockManager} when the context stops:
 * after the web server has finished its requests, and before the Redis connection factory
 * (phase 0) stops, which would leave the locks to expire with their lease.
 */
class LockManagerShutdown implements SmartLifecycle {

	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private final ObjectProvider<RedisLockManager> lockManagers;

	private volatile boolean running;

	LockManagerShutdown(ObjectProvider<RedisLockManager> lockManagers) {
		this.lockManagers = lockManagers;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.lockManagers.orderedStream().forEach(RedisLockManager::close);
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
