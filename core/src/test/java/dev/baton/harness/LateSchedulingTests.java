package dev.baton.harness;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A harness finding reduced to two instances: a {@code schedule} that timed out while its
 * connection was black-holed is sent by Lettuce once the connection works again, long after the
 * caller gave up, scheduled the task elsewhere and cancelled it: the cancelled task comes back
 * and runs. Found by {@link FaultFindingHarnessTests} with seed 27 (task t-30, cancelled at
 * 1.5 s, run at 5.2 s, after instance-2's black hole of 0.9 to 5.1 s ended).
 */
class LateSchedulingTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	@AfterEach
	void stop() {
		this.servers.close();
	}

	@Test
	void cancelledTaskIsNotScheduledAgainByACallThatTimedOutBeforeTheCancel() throws InterruptedException {
		JsonMapper json = JsonMapper.builder().build();
		try (RedisDelayQueues direct = RedisDelayQueues.builder(this.servers.direct(), json).build();
				RedisDelayQueues proxied = RedisDelayQueues.builder(this.servers.throughProxy(), json)
					.commandTimeout(Duration.ofMillis(500))
					.build()) {
			DelayQueue<HarnessTask> other = direct.get("late", HarnessTask.class);
			DelayQueue<HarnessTask> partitioned = proxied.get("late", HarnessTask.class);
			HarnessTask task = new HarnessTask("fast", 0, 0);
			// Connected: the schedule below is the request that the black hole swallows.
			assertThat(partitioned.find("t-1")).isEmpty();
			this.servers.proxy().blackHole();
			assertThat(catchThrowable(() -> partitioned.schedule("t-1", task, Duration.ofHours(1))))
				.as("the partitioned instance's schedule times out").isNotNull();
			// The application schedules it elsewhere, then cancels it.
			assertThat(other.schedule("t-1", task, Duration.ofHours(1))).isTrue();
			assertThat(other.cancel("t-1")).isTrue();

			this.servers.proxy().heal();
			// The partitioned instance works again.
			partitioned.find("t-0");
			Thread.sleep(1000);

			assertThat(other.find("t-1")).as("the cancelled task, after the partition ended").isEmpty();
		}
	}

}
