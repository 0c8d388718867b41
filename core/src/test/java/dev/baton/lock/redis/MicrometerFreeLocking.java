package dev.baton.lock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.function.Function;

import dev.baton.lock.LockLease;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Takes and releases a lock given a Redis URL, returning the fencing token: run by
 * {@link MicrometerOptionalTests} in a class loader without Micrometer.
 */
public final class MicrometerFreeLocking implements Function<String, Long> {

	@Override
	public Long apply(String redisUrl) {
		URI redis = URI.create(redisUrl);
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.getHost(), redis.getPort()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
			try (LockLease lease = locks.tryAcquire("report", Duration.ZERO).orElseThrow()) {
				return lease.fencingToken();
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
