package dev.baton.benchmarks.lock;

import java.net.URI;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's {@link RedisLockRegistry} on a Lettuce connection factory, in its default
 * mode (waiters retry every 100 ms) or its pub/sub mode (waiters are woken on release).
 */
final class SpringIntegrationLockClient implements LockClient {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	SpringIntegrationLockClient(String redisUrl, RedisLockType type) {
		URI uri = URI.create(redisUrl);
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.registry = new RedisLockRegistry(this.connectionFactory, "baton-bench");
		this.registry.setRedisLockType(type);
	}

	@Override
	public Lock lockFor(String name) {
		return this.registry.obtain(name);
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
	}

}
