package dev.baton.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis deployment that the contract suites run against: the shared standalone server, a local
 * cluster of 3 primaries, or a Sentinel set. Each connection is an instance of the application;
 * they share one set of Lettuce client resources, so that closing one does not wait for event
 * loops of its own to shut down.
 */
final class RedisBackend implements AutoCloseable {

	private final RedisConfiguration configuration;

	private final AutoCloseable deployment;

	private final List<LocalRedisServer> primaries;

	private final List<LettuceConnectionFactory> connections = new ArrayList<>();

	private final ClientResources resources = DefaultClientResources.create();

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
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(this.resources)
			.shutdownTimeout(Duration.ZERO)
			.build();
		LettuceConnectionFactory factory;
		if (this.configuration instanceof RedisClusterConfiguration cluster) {
			factory = new LettuceConnectionFactory(cluster, client);
		}
		else if (this.configuration instanceof RedisSentinelConfiguration sentinel) {
			factory = new LettuceConnectionFactory(sentinel, client);
		}
		else {
			factory = new LettuceConnectionFactory((RedisStandaloneConfiguration) this.configuration, client);
		}
		factory.afterPropertiesSet();
		factory.start();
		this.connections.add(factory);
		return factory;
	}

	@Override
	public void close() throws Exception {
		this.connections.forEach(LettuceConnectionFactory::destroy);
		this.resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
		this.deployment.close();
	}

}
