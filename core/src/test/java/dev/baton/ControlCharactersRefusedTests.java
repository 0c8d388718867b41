package dev.baton;

import java.time.Duration;
import java.util.List;

import dev.baton.lock.LockRequest;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Log injection: ids and names end up in log lines and exception messages, so a control
 * character (a forged line break) is refused where they enter, and the refusal does not echo it.
 */
@RedisTest
class ControlCharactersRefusedTests {

	/** A forged audit line, as found in the security review. */
	private static final String FORGED = "42\n[audit] payout 42 APPROVED by supervisor";

	private static final List<String> BAD = List.of(FORGED, "a\rb", "nul\u0000", "del\u007f", "nel\u0085",
			"line\u2028sep", "para\u2029sep", "tab\tbed");

	private RedisDelayQueues queues;

	private RedisLockManager locks;

	private StringRedisTemplate redis;

	@BeforeEach
	void create(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		this.locks = RedisLockManager.builder(connectionFactory).build();
		this.redis = redis;
	}

	@AfterEach
	void close() {
		this.locks.close();
		this.queues.close();
	}

	@Test
	void taskIdsWithControlCharactersAreRefusedAndNothingIsStored() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		for (String id : BAD) {
			assertRefused(() -> queue.schedule(id, "p", Duration.ZERO), "Task id", id);
			assertRefused(() -> queue.scheduleAll(List.of(NewTask.of(id, "p", Duration.ZERO))), "Task id", id);
			assertRefused(() -> queue.cancel(id), "Task id", id);
		}
		assertThat(this.redis.keys("baton:q:*")).isEmpty();
	}

	@Test
	void queueNamesWithControlCharactersAreRefused() {
		for (String name : BAD) {
			assertRefused(() -> this.queues.get(name, String.class), "Queue name", name);
		}
	}

	@Test
	void queueNamesAreCappedLikeTaskIds() {
		assertThat(this.queues.get("q".repeat(256), String.class).schedule("1", "p", Duration.ofHours(1))).isTrue();

		assertThatIllegalArgumentException().isThrownBy(() -> this.queues.get("q".repeat(257), String.class))
			.withMessage("Queue name must be at most 256 characters, was 257");
	}

	@Test
	void lockNamesWithControlCharactersAreRefusedAndNothingIsStored() {
		for (String name : BAD) {
			assertRefused(() -> this.locks.getLock(name), "Lock name", name);
			assertRefused(() -> this.locks.tryAcquire(LockRequest.of(name).build()), "Lock name", name);
		}
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

	private static void assertRefused(Executable call, String what, String value) {
		String problem = value.codePoints()
			.filter((c) -> Character.getType(c) == Character.CONTROL || c == 0x2028 || c == 0x2029)
			.mapToObj((c) -> String.format("U+%04X", c))
			.findFirst()
			.orElseThrow();
		assertThatIllegalArgumentException().isThrownBy(call::execute)
			.withMessageStartingWith(what + " must not contain control characters")
			.withMessageContaining(problem)
			.withMessageNotContaining(value)
			.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContainPattern("[\\p{Cc}\\u2028\\u2029]"));
	}

}
