package dev.baton.benchmarks.lock;

import java.util.concurrent.locks.Lock;

import dev.baton.benchmarks.BatonApplication;
import dev.baton.lock.LockManager;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Baton's {@code RedisLock} from the auto-configured {@link LockManager}, with its defaults:
 * {@code lock()} without a lease time is renewed by the watchdog.
 */
final class BatonLockClient implements LockClient {

	private final ConfigurableApplicationContext application;

	private final LockManager locks;

	/**
	 * Starts the application.
	 * @param redisUrl the server
	 * @param properties extra {@code name=value} properties
	 */
	BatonLockClient(String redisUrl, String... properties) {
		this.application = BatonApplication.start(redisUrl, (context) -> {
		}, properties);
		this.locks = this.application.getBean(LockManager.class);
	}

	@Override
	public Lock lockFor(String name) {
		return this.locks.getLock(name);
	}

	@Override
	public void close() {
		this.application.close();
	}

}
