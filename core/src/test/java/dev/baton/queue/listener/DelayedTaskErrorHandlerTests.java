package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What happens to a failed task is the error handler's decision: the default retries on the
 * queue's back-off and gives up after its max attempts; one with not-retryable exception types
 * gives up on those at once; one with a back-off of its own replaces the queue's.
 */
@RedisTest
class DelayedTaskErrorHandlerTests {

	private static final ListenerSettings SETTINGS = new ListenerSettings(4,
			new BackoffPolicy(Duration.ofMillis(10), 2.0, Duration.ofMillis(40)), Duration.ofSeconds(30), 16, 100,
			Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(2), ListenerSettings.DEFAULT_MAX_DELIVERIES);

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void theDefaultRetriesUntilTheQueuesMaxAttempts(RedisConnectionFactory connectionFactory) {
		FailingHandler handler = new FailingHandler(new IllegalStateException("payment provider down"));
		DelayQueue<String> queue = start(connectionFactory, new DefaultDelayedTaskErrorHandler(), handler);

		queue.schedule("p-1", "x", Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.deadLetters(10).size() == 1);
		assertThat(handler.attempts.get()).isEqualTo(4);
	}

	@Test
	void notRetryableExceptionsAreGivenUpOnAtOnce(RedisConnectionFactory connectionFactory) {
		FailingHandler handler = new FailingHandler(
				new IllegalStateException("wrapped", new IllegalArgumentException("bad order")));
		DelayQueue<String> queue = start(connectionFactory,
				new DefaultDelayedTaskErrorHandler().addNotRetryableExceptions(IllegalArgumentException.class), handler);

		queue.schedule("p-1", "x", Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.deadLetters(10).size() == 1);
		assertThat(handler.attempts.get()).isOne();
		assertThat(queue.deadLetters(10).get(0).attempts()).isOne();
	}

	@Test
	void aBackOffOfItsOwnReplacesTheQueues(RedisConnectionFactory connectionFactory) {
		FailingHandler handler = new FailingHandler(new IllegalStateException("payment provider down"));
		DelayQueue<String> queue = start(connectionFactory,
				new DefaultDelayedTaskErrorHandler(new FixedBackOff(10, 1)), handler);

		queue.schedule("p-1", "x", Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.deadLetters(10).size() == 1);
		assertThat(handler.attempts.get()).isEqualTo(2);
	}

	@Test
	void theQueuesBackOffHasOneDelayPerRetry() {
		BackOffExecution execution = SETTINGS.backoff().toBackOff(SETTINGS.maxAttempts()).start();

		assertThat(List.of(execution.nextBackOff(), execution.nextBackOff(), execution.nextBackOff(),
				execution.nextBackOff())).containsExactly(10L, 20L, 40L, BackOffExecution.STOP);
		assertThat(SETTINGS.backoff().delayAfter(5)).isEqualTo(Duration.ofMillis(40));
	}

	private DelayQueue<String> start(RedisConnectionFactory connectionFactory, DelayedTaskErrorHandler errorHandler,
			Object handler) {
		Function<String, ListenerSettings> settings = (name) -> SETTINGS;
		UnaryOperator<DelayedTaskListenerRegistry.Builder> withErrorHandler = (registry) -> registry
			.errorHandler(errorHandler);
		ListenerContext context = new ListenerContext(connectionFactory, settings, withErrorHandler, handler);
		this.contexts.add(context);
		context.start();
		return context.queues.get("payments", String.class);
	}

	static class FailingHandler {

		final AtomicInteger attempts = new AtomicInteger();

		private final RuntimeException failure;

		FailingHandler(RuntimeException failure) {
			this.failure = failure;
		}

		@DelayedTask(queue = "payments")
		void handle(String payment) {
			this.attempts.incrementAndGet();
			throw this.failure;
		}

	}

}
