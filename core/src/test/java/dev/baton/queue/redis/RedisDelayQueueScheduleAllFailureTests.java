package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** scheduleAll whose second chunk Redis refuses: the caller learns which tasks were stored. */
class RedisDelayQueueScheduleAllFailureTests {

	private ProxiedRedis redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.redis = ProxiedRedis.start("--maxmemory-policy", "noeviction");
		this.connectionFactory = this.redis.direct();
		this.queues = RedisDelayQueues.builder(this.connectionFactory, JsonMapper.builder().build()).build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void failureOfALaterChunkNamesTheIdsAlreadyStored() {
		DelayQueue<String> queue = this.queues.get("bulk", String.class);
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		long used = Long.parseLong(info(redis).getProperty("used_memory"));
		// Room for about half of the tasks: the first chunk fits, the second is refused (OOM).
		redis.execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().setConfig("maxmemory", String.valueOf(used + 4_500_000));
			return null;
		});
		String payload = "x".repeat(3_000);
		List<NewTask<String>> tasks = IntStream.range(0, 2_000)
			.mapToObj((i) -> NewTask.of(payload, Duration.ofMinutes(30)))
			.toList();

		PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
			.isThrownBy(() -> queue.scheduleAll(tasks))
			.withMessageContaining("stored 1000 task(s)")
			.actual();

		assertThat(failure.getScheduledIds()).hasSize(1000).doesNotContainAnyElementsOf(failure.getUnscheduledIds());
		assertThat(failure.getUnscheduledIds()).hasSize(1000);
		assertThat(redis.opsForHash().keys("baton:q:{bulk}:tasks")).hasSize(1000)
			.containsExactlyInAnyOrderElementsOf(failure.getScheduledIds());
	}

	private static Properties info(StringRedisTemplate redis) {
		return redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("memory"));
	}

}
