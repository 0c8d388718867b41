package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Scheduling under generated ids that Redis does not answer: the caller learns the ids, so that
 * scheduling again under them cannot store a task twice.
 */
class UnansweredSchedulingTests {

	private ProxiedRedis redis;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.redis = ProxiedRedis.start();
		this.queues = RedisDelayQueues.builder(this.redis.throughProxy(), JsonMapper.builder().build())
			.commandTimeout(Duration.ofMillis(300))
			.build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void aScheduleThatTimesOutNamesItsGeneratedId() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("warm-up", "x", Duration.ofHours(1));

		this.redis.proxy().blackHole();
		PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
			.isThrownBy(() -> queue.schedule("payment", Duration.ofHours(1)))
			.withCauseInstanceOf(DataAccessException.class)
			.actual();
		this.redis.proxy().heal();

		assertThat(failure.getScheduledIds()).isEmpty();
		String id = failure.getUnscheduledIds().get(0);
		assertThat(failure.getUnscheduledIds()).containsExactly(id);
		// The black-holed call may or may not have reached Redis: scheduling again under the id is safe
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			queue.schedule(id, "payment", Duration.ofHours(1));
			return true;
		});
		assertThat(queue.find(id)).hasValueSatisfying((task) -> assertThat(task.payload()).isEqualTo("payment"));
		assertThat(queue.stats().scheduled()).isEqualTo(2);
	}

	@Test
	void aScheduleAllThatRedisDoesNotAnswerAtAllNamesItsGeneratedIds() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("warm-up", "x", Duration.ofHours(1));
		List<NewTask<String>> tasks = List.of(NewTask.of("a", Duration.ofHours(1)), NewTask.of("b", Duration.ofHours(1)),
				NewTask.of("own", "c", Duration.ofHours(1)));

		this.redis.proxy().blackHole();
		PartiallyScheduledException failure = assertThatExceptionOfType(PartiallyScheduledException.class)
			.isThrownBy(() -> queue.scheduleAll(tasks))
			.actual();
		this.redis.proxy().heal();

		assertThat(failure.getScheduledIds()).isEmpty();
		assertThat(failure.getUnscheduledIds()).hasSize(3).contains("own").doesNotContainNull();
	}

}
