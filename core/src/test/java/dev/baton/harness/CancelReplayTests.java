package dev.baton.harness;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cause of a harness finding: in one run of seed 27, task t-28 was accepted, a {@code cancel}
 * of it answered {@code false} while a proxy reset a connection after forwarding a request, and
 * the task was then neither run nor dead-lettered. A cancel whose reply is lost runs twice (Lettuce
 * sends it again) and answered {@code false} for the task it had deleted; cancel.lua now remembers
 * its reply for the second run ({@link dev.baton.queue.redis.ScheduleAndCancelReplayTests}
 * reproduces it every time; this test, through the harness's queue, did not).
 */
class CancelReplayTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	@AfterEach
	void stop() {
		this.servers.close();
	}

	@Test
	void cancelWhoseReplyIsLostAnswersTrueOrLeavesTheTaskWaiting() {
		JsonMapper json = JsonMapper.builder().build();
		try (RedisDelayQueues direct = RedisDelayQueues.builder(this.servers.direct(), json).build();
				RedisDelayQueues proxied = RedisDelayQueues.builder(this.servers.throughProxy(), json)
					.commandTimeout(Duration.ofSeconds(2))
					.build()) {
			DelayQueue<HarnessTask> checker = direct.get("replay", HarnessTask.class);
			DelayQueue<HarnessTask> queue = proxied.get("replay", HarnessTask.class);
			assertThat(checker.schedule("t-1", new HarnessTask("fast", 0, 0), Duration.ofHours(1))).isTrue();
			// Connected and the scripts loaded: the next request is the cancel.
			assertThat(queue.find("t-1")).isPresent();
			this.servers.proxy().dropNextReplyAndReset();

			boolean cancelled = queue.cancel("t-1");

			boolean stillWaiting = checker.find("t-1").isPresent();
			assertThat(cancelled).as("cancel answered true, or else the task still waits (it waits: %s)", stillWaiting)
				.isNotEqualTo(stillWaiting);
		}
	}

}
