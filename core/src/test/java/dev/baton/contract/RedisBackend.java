package dev.baton.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis deployment that the contract suites run against: the shared standalone server, a local
 * cluster of 3 primaries, or a Sentinel set. Each connection is an instance of the application.
 */
final class RedisBackend implements AutoCloseable {

	private final RedisConfiguration configuration;

	private final AutoCloseable deployment;

	private final List<LocalRedisServer> primaries;

	private final List<LettuceConnectionFactory> connections = new ArrayList<>();

	private RedisBackend(RedisConfiguration configuration, AutoCloseable deployment,
			List<LocalRedisServer> primaries) {
		this.configuration = configuration;
		this.deployment = deployment;
		this.primaries = primaries;
	}

	static RedisBackend standalone() {
		RedisServer server = RedisServers.shared();
		// The shared server outlives the suite
		return new RedisBackend(new RedisStandaloneConfiguration(server.host(), server.port()), () -> {
		}, List.of());
	}

	static RedisBackend cluster() {
		LocalRedisCluster cluster = RedisServers.startCluster(3);
		return new RedisBackend(new RedisClusterConfiguration(cluster.nodes()), cluster, cluster.primaries());
	}

	static RedisBackend sentinel() {
		LocalRedisSentinel sentinel = RedisServers.startSentinel();
		return new RedisBackend(new RedisSentinelConfiguration(sentinel.masterName(),
				Set.copyOf(sentinel.sentinelNodes())), sentinel, List.of());
	}

	/** The primaries of a cluster, empty for other deployments. */
	List<LocalRedisServer> primaries() {
		return this.primaries;
	}

	/** A new connection factory: one instance of the application. */
	LettuceConnectionFactory connect() {
		LettuceConnectionFactory factory;
		if (this.configuration instanceof RedisClusterConfiguration cluster) {
			factory = new LettuceConnectionFactory(cluster);
		}
		else if (this.configuration instanceof RedisSentinelConfiguration sentinel) {
			factory = new LettuceConnectionFactory(sentinel);
		}
		else {
			factory = new LettuceConnectionFactory((RedisStandaloneConfiguration) this.configuration);
		}
		factory.afterPropertiesSet();
		factory.start();
		this.connections.add(factory);
		return factory;
	}

	@Override
	public void close() throws Exception {
		this.connections.forEach(LettuceConnectionFactory::destroy);
		this.deployment.close();
	}

}
