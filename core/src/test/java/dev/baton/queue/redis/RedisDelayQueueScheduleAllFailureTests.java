package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.queue.ScheduledTask;
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

/**
 * scheduleAll that Redis refuses in part: the caller learns which tasks were stored and gets the
 * others, under their generated ids, to schedule again.
 */
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

	@Test
	void aFailedPartitionNamesItsTasksWithTheirGeneratedIdsSoThatTheyCanBeScheduledAgain() {
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		try (RedisDelayQueues partitioned = RedisDelayQueues.builder(this.connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> 4)
			.build()) {
			DelayQueue<String> queue = partitioned.get("bulk", String.class);
			// Partition 1 refuses every script (WRONGTYPE); the other three store their tasks
			redis.opsForValue().set("baton:q:{bulk#1}:p1:due", "not a sorted set");
			List<NewTask<String>> tasks = IntStream.range(0, 100)
				.mapToObj((i) -> NewTask.of("payment " + i, Duration.ofMinutes(30)))
				.toList();

			PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
				.isThrownBy(() -> queue.scheduleAll(tasks))
				.actual();

			List<NewTask<String>> unscheduled = failure.getUnscheduledTasks();
			assertThat(unscheduled).isNotEmpty().hasSizeLessThan(100);
			assertThat(unscheduled).extracting(NewTask::id).containsExactlyElementsOf(failure.getUnscheduledIds());
			assertThat(failure.getScheduledIds()).hasSize(100 - unscheduled.size());
			redis.delete("baton:q:{bulk#1}:p1:due");
			assertThat(queue.scheduleAll(unscheduled)).containsExactlyElementsOf(failure.getUnscheduledIds());
			assertThat(queue.stats().scheduled()).isEqualTo(100);
			assertThat(queue.peek(100)).extracting(ScheduledTask::payload)
				.containsExactlyInAnyOrderElementsOf(tasks.stream().map(NewTask::payload).toList());
		}
	}

	private static Properties info(StringRedisTemplate redis) {
		return redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("memory"));
	}

}
