package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A {@code schedule} given up on a Redis Cluster must not store its task when Lettuce sends it
 * again after a reconnect, long after the caller scheduled the task elsewhere and cancelled it.
 * Lettuce wraps each cluster command in one of its own whose completion ignores the caller's
 * cancel, so a cancelled command is sent again where a standalone connection drops it
 * ({@code LateSchedulingTests}).
 */
class RedisClusterLateSchedulingTests {

	private final LocalRedisCluster cluster = RedisServers.startCluster(3);

	/** One proxy per primary, which the proxied client reaches instead of the node. */
	private final List<RedisProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private ClientResources resources;

	@AfterEach
	void stop() {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		if (this.resources != null) {
			this.resources.shutdown();
		}
		this.proxies.forEach(RedisProxy::close);
		this.cluster.close();
	}

	@Test
	void cancelledTaskIsNotScheduledAgainByACallThatTimedOutBeforeTheCancel() {
		JsonMapper json = JsonMapper.builder().build();
		try (RedisDelayQueues direct = RedisDelayQueues.builder(connectionFactory(null), json).build();
				RedisDelayQueues proxied = RedisDelayQueues.builder(connectionFactory(proxiedResources()), json)
					.commandTimeout(Duration.ofMillis(500))
					.build()) {
			DelayQueue<String> other = direct.get("late", String.class);
			DelayQueue<String> partitioned = proxied.get("late", String.class);
			// Connected: the schedule below is the request that the black hole swallows.
			assertThat(partitioned.find("t-0")).isEmpty();
			this.proxies.forEach(RedisProxy::blackHole);
			assertThat(catchThrowable(() -> partitioned.schedule("t-1", "payload", Duration.ofHours(1))))
				.as("the partitioned instance's schedule times out").isNotNull();
			assertThat(other.schedule("t-1", "payload", Duration.ofHours(1))).isTrue();
			assertThat(other.cancel("t-1")).isTrue();

			// The partition ends with a reconnect: Lettuce sends again what had no reply.
			this.proxies.forEach(RedisProxy::cut);
			this.proxies.forEach(RedisProxy::heal);
			// A call answered on the new connection: anything sent on it before has run.
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.untilAsserted(() -> assertThat(partitioned.find("t-0")).isEmpty());

			assertThat(other.find("t-1")).as("the cancelled task, after the partition ended").isEmpty();
		}
	}

	private ClientResources proxiedResources() {
		Map<Integer, Integer> proxyPorts = new HashMap<>();
		for (LocalRedisServer primary : this.cluster.primaries()) {
			RedisProxy proxy = RedisProxy.to(primary);
			this.proxies.add(proxy);
			proxyPorts.put(primary.port(), proxy.port());
		}
		this.resources = ClientResources.builder()
			.socketAddressResolver(MappingSocketAddressResolver.create((HostAndPort node) -> {
				Integer proxyPort = proxyPorts.get(node.getPort());
				return (proxyPort != null) ? HostAndPort.of(node.getHostText(), proxyPort) : node;
			}))
			.build();
		return this.resources;
	}

	private LettuceConnectionFactory connectionFactory(ClientResources resources) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder configuration = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(60));
		if (resources != null) {
			configuration.clientResources(resources);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(this.cluster.nodes()), configuration.build());
		factory.afterPropertiesSet();
		factory.start();
		this.connectionFactories.add(factory);
		return factory;
	}

}
