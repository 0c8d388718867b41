package dev.baton.benchmarks.support;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Connection factories of Baton's own scenarios that run on a server they start themselves. */
public final class Connections {

	private Connections() {
	}

	/**
	 * A started Lettuce connection factory with Spring Data's defaults; the caller destroys it.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the factory
	 */
	public static LettuceConnectionFactory standalone(String host, int port) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host, port));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

}
