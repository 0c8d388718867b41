package dev.baton.test.internal;

import dev.baton.test.RedisServer;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The test server as Spring Boot's Redis connection details, as {@code @ServiceConnection}
 * provides them: Boot's auto-configuration then connects to it whatever
 * {@code spring.data.redis.*} says (url, host and port, sentinel or cluster).
 */
public final class TestRedisConnectionDetails implements DataRedisConnectionDetails {

	private final RedisServer server;

	public TestRedisConnectionDetails(RedisServer server) {
		this.server = server;
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(this.server.host(), this.server.port());
	}

}
