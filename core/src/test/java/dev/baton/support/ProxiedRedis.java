package dev.baton.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A private redis-server behind a fault proxy, for tests that cut, black-hole or kill it.
 * Connections have Lettuce's default 60 s command timeout, as an application's would, so that a
 * test shows Baton's own bounds at work.
 */
public final class ProxiedRedis implements AutoCloseable {

	private final LocalRedisServer server;

	private final RedisProxy proxy;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private ProxiedRedis(LocalRedisServer server) {
		this.server = server;
		this.proxy = RedisProxy.to(server);
	}

	/**
	 * Start a server and its proxy.
	 * @param serverArguments extra {@code redis-server} arguments
	 * @return the running pair
	 */
	public static ProxiedRedis start(String... serverArguments) {
		return new ProxiedRedis(RedisServers.startLocal(serverArguments));
	}

	public LocalRedisServer server() {
		return this.server;
	}

	public RedisProxy proxy() {
		return this.proxy;
	}

	/** A connection factory through the proxy, closed with this. */
	public LettuceConnectionFactory throughProxy() {
		return connectionFactory(this.proxy.port());
	}

	/** A connection factory straight to the server, closed with this. */
	public LettuceConnectionFactory direct() {
		return connectionFactory(this.server.port());
	}

	private LettuceConnectionFactory connectionFactory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.connectionFactories.add(factory);
		return factory;
	}

	@Override
	public void close() {
		this.proxy.heal();
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.proxy.close();
		this.server.close();
	}

}
