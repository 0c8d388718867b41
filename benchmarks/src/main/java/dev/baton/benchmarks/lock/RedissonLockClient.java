package dev.baton.benchmarks.lock;

import java.util.concurrent.locks.Lock;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's {@code RLock} with its defaults: watchdog lease, pub/sub wake-up of waiters. */
final class RedissonLockClient implements LockClient {

	private final RedissonClient redisson;

	RedissonLockClient(String redisUrl) {
		Config config = new Config();
		config.useSingleServer().setAddress(redisUrl);
		this.redisson = Redisson.create(config);
	}

	@Override
	public Lock lockFor(String name) {
		return this.redisson.getLock(name);
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
