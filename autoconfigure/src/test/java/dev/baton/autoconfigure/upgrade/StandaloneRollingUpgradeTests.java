package dev.baton.autoconfigure.upgrade;

import java.util.List;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.data.redis.core.StringRedisTemplate;

/** {@link RollingUpgradeTests} on one Redis server. */
@RedisTest
class StandaloneRollingUpgradeTests extends RollingUpgradeTests {

	private RedisServer server;

	private StringRedisTemplate redis;

	@BeforeEach
	void useServer(RedisServer server, StringRedisTemplate redis) {
		this.server = server;
		this.redis = redis;
	}

	@Override
	List<String> redisProperties() {
		return List.of("spring.data.redis.host=" + this.server.host(), "spring.data.redis.port=" + this.server.port());
	}

	@Override
	StringRedisTemplate redis() {
		return this.redis;
	}

}
