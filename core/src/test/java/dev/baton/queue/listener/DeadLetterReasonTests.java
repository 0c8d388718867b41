package dev.baton.queue.listener;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a handler's failure leaves in Redis as the reason of its dead letter: exception messages
 * quote the values that failed, personal data that would stay as long as the dead letter.
 */
@RedisTest
class DeadLetterReasonTests {

	private static final Function<String, ListenerSettings> DEFAULTS = (queue) -> ListenerSettings.DEFAULTS;

	private ListenerContext app;

	@AfterEach
	void stop() {
		this.app.close();
	}

	@Test
	void keepsTheExceptionClassWithoutItsMessageByDefault(RedisConnectionFactory connectionFactory) {
		this.app = new ListenerContext(connectionFactory, DEFAULTS, new IbanHandler())
			.start();

		assertThat(deadLetterOf("p-1").reason())
			.isEqualTo("java.lang.IllegalStateException, caused by java.lang.IllegalArgumentException");
	}

	@Test
	void storesWhatTheHookMakesOfTheFailure(RedisConnectionFactory connectionFactory) {
		UnaryOperator<DelayedTaskListenerRegistry.Builder> hook = (registry) -> registry
			.deadLetterReason((failure) -> "payout failed: " + failure.getClass().getSimpleName());
		this.app = new ListenerContext(connectionFactory, DEFAULTS, hook, new IbanHandler()).start();

		assertThat(deadLetterOf("p-2").reason()).isEqualTo("payout failed: IllegalStateException");
	}

	@Test
	void fallsBackToTheExceptionClassWhenTheHookFails(RedisConnectionFactory connectionFactory) {
		UnaryOperator<DelayedTaskListenerRegistry.Builder> failingHook = (registry) -> registry
			.deadLetterReason((failure) -> {
				throw new UnsupportedOperationException("hook broken");
			});
		this.app = new ListenerContext(connectionFactory, DEFAULTS, failingHook, new IbanHandler()).start();

		assertThat(deadLetterOf("p-3").reason())
			.isEqualTo("java.lang.IllegalStateException, caused by java.lang.IllegalArgumentException");
	}

	private DeadLetter<String> deadLetterOf(String id) {
		DelayQueue<String> queue = this.app.queues.get("payouts", String.class);
		queue.schedule(id, "payout", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.deadLetters(1).size() == 1);
		return queue.deadLetters(1).get(0);
	}

	static class IbanHandler {

		@DelayedTask(queue = "payouts", maxAttempts = "1")
		void handle(String payout) {
			throw new IllegalStateException("Payout to DE44500105175407324931 failed",
					new IllegalArgumentException("Cannot deserialize value of type `int` from String \"DE4450\""));
		}

	}

}
