package dev.baton.harness;

import java.time.Duration;
import java.util.function.Consumer;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Harness findings reduced to two instances: a {@code schedule} that timed out must not store its
 * task once the connection works again, long after the caller gave up, scheduled the task
 * elsewhere and cancelled it: the cancelled task would come back and run.
 */
class LateSchedulingTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	@AfterEach
	void stop() {
		this.servers.close();
	}

	/**
	 * The request went out and the black hole swallowed it: Lettuce sends it again on the new
	 * connection. Found by {@link FaultFindingHarnessTests} with seed 27 (task t-30, cancelled at
	 * 1.5 s, run at 5.2 s, after instance-2's black hole of 0.9 to 5.1 s ended).
	 */
	@Test
	void cancelledTaskIsNotScheduledAgainByACallThatTimedOutBeforeTheCancel() {
		assertCancelledAfterAScheduleGivenUp(this.servers.throughProxy(), () -> this.servers.proxy().blackHole(),
				(partitioned) -> {
					this.servers.proxy().heal();
					// The partitioned instance works again.
					partitioned.find("t-0");
					Pause.millis(1000);
				});
	}

	/**
	 * The call waited for a connection to open, and gave up before it did: the connection opens
	 * later and must not carry the call. Found by {@link ClusterHarnessTests} with seed
	 * 8709308027961755922 (task t-487, cancelled at 37.3 s, stored again at 38.8 s, 80 ms after a
	 * paused primary let a cluster connection open, and run at 41.1 s).
	 */
	@Test
	void cancelledTaskIsNotScheduledByACallThatGaveUpWaitingForAConnection() {
		LettuceConnectionFactory proxiedFactory = this.servers.throughProxy();
		assertCancelledAfterAScheduleGivenUp(proxiedFactory, () -> {
			// The shared connection closes (a reset), and the next one takes a few round trips to open.
			this.servers.proxy().latency(Duration.ofMillis(200));
			proxiedFactory.resetConnection();
		}, (partitioned) ->
		// A call answered on the new connection: anything sent on it before has run.
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(partitioned.find("t-0")).isEmpty()));
	}

	/**
	 * A schedule through the proxy times out while {@code fault} lasts; the application schedules
	 * the task elsewhere and cancels it; {@code recovery} lets the proxied instance work again: the
	 * cancelled task must stay gone.
	 */
	private void assertCancelledAfterAScheduleGivenUp(LettuceConnectionFactory proxiedFactory, Runnable fault,
			Consumer<DelayQueue<HarnessTask>> recovery) {
		JsonMapper json = JsonMapper.builder().build();
		try (RedisDelayQueues direct = RedisDelayQueues.builder(this.servers.direct(), json).build();
				RedisDelayQueues proxied = RedisDelayQueues.builder(proxiedFactory, json)
					.commandTimeout(Duration.ofMillis(500))
					.build()) {
			DelayQueue<HarnessTask> other = direct.get("late", HarnessTask.class);
			DelayQueue<HarnessTask> partitioned = proxied.get("late", HarnessTask.class);
			HarnessTask task = new HarnessTask("fast", 0, 0);
			// Connected: the schedule below is the request that the fault holds up.
			assertThat(partitioned.find("t-1")).isEmpty();
			fault.run();
			assertThat(catchThrowable(() -> partitioned.schedule("t-1", task, Duration.ofHours(1))))
				.as("the partitioned instance's schedule times out").isNotNull();
			// The application schedules it elsewhere, then cancels it.
			assertThat(other.schedule("t-1", task, Duration.ofHours(1))).isTrue();
			assertThat(other.cancel("t-1")).isTrue();

			recovery.accept(partitioned);

			assertThat(other.find("t-1")).as("the cancelled task, after the fault ended").isEmpty();
		}
	}

}
