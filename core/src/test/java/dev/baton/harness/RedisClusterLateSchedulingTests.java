package dev.baton.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.RedisServers;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A {@code schedule} given up on a Redis Cluster must not store its task when Lettuce sends it
 * again after a reconnect, long after the caller scheduled the task elsewhere and cancelled it.
 * Lettuce wraps each cluster command in one of its own whose completion ignores the caller's
 * cancel, so a cancelled command is sent again where a standalone connection drops it
 * ({@link LateSchedulingTests}).
 */
class RedisClusterLateSchedulingTests {

	private final LocalRedisCluster cluster = RedisServers.startCluster(3);

	/** One proxy per primary, which the proxied client reaches instead of the node. */
	private final InstanceProxies proxies = InstanceProxies.perNode(this.cluster.primaries());

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	@AfterEach
	void stop() {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.proxies.close();
		this.cluster.close();
	}

	@Test
	void cancelledTaskIsNotScheduledAgainByACallThatTimedOutBeforeTheCancel() {
		JsonMapper json = JsonMapper.builder().build();
		try (RedisDelayQueues direct = RedisDelayQueues.builder(connectionFactory(null), json).build();
				RedisDelayQueues proxied = RedisDelayQueues.builder(connectionFactory(this.proxies.resources()), json)
					.commandTimeout(Duration.ofMillis(500))
					.build()) {
			DelayQueue<String> other = direct.get("late", String.class);
			DelayQueue<String> partitioned = proxied.get("late", String.class);
			// Connected: the schedule below is the request that the black hole swallows.
			assertThat(partitioned.find("t-0")).isEmpty();
			this.proxies.blackHole();
			assertThat(catchThrowable(() -> partitioned.schedule("t-1", "payload", Duration.ofHours(1))))
				.as("the partitioned instance's schedule times out").isNotNull();
			assertThat(other.schedule("t-1", "payload", Duration.ofHours(1))).isTrue();
			assertThat(other.cancel("t-1")).isTrue();

			// The partition ends with a reconnect: Lettuce sends again what had no reply.
			this.proxies.cut();
			this.proxies.heal();
			// A call answered on the new connection: anything sent on it before has run.
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.untilAsserted(() -> assertThat(partitioned.find("t-0")).isEmpty());

			assertThat(other.find("t-1")).as("the cancelled task, after the partition ended").isEmpty();
		}
	}

	private LettuceConnectionFactory connectionFactory(@Nullable ClientResources resources) {
		LettuceConnectionFactory factory = HarnessInstance
			.connectionFactory(new RedisClusterConfiguration(this.cluster.nodes()), resources);
		this.connectionFactories.add(factory);
		return factory;
	}

}
