package dev.baton.autoconfigure.upgrade;

import java.util.List;

import dev.baton.test.LocalRedisCluster;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** {@link RollingUpgradeTests} on a Redis Cluster of three primaries. */
class ClusterRollingUpgradeTests extends RollingUpgradeTests {

	private static LocalRedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		cluster = RedisServers.startCluster(3);
		connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodes()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void stopCluster() {
		connectionFactory.destroy();
		cluster.close();
	}

	@Override
	List<String> redisProperties() {
		return List.of("spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()));
	}

	@Override
	StringRedisTemplate redis() {
		return new StringRedisTemplate(connectionFactory);
	}

}
