package dev.baton.autoconfigure.queue;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Injecting a {@code DelayQueue<T>} whose payload type no queue has, as a newcomer does when the
 * handler takes {@code Long} and the producer asks for {@code DelayQueue<String>}: the failure
 * names the queue, its payload type and the one asked for.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class MismatchedDelayQueueTests {

	@Test
	void aQueueInjectedWithTheWrongPayloadTypeIsExplained(RedisServer server, CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(server, Producer.class));

		String report = output.getAll().substring(output.getAll().lastIndexOf("APPLICATION FAILED TO START"));
		assertThat(report).contains("DelayQueue<java.lang.String>")
			.contains("'payment-timeout' (java.lang.Long)")
			.contains("DelayQueue<java.lang.Long>");
	}

	@Test
	void theSameWithAQualifier(RedisServer server, CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(server, QualifiedProducer.class));

		String report = output.getAll().substring(output.getAll().lastIndexOf("APPLICATION FAILED TO START"));
		assertThat(report).contains("'payment-timeout' (java.lang.Long)");
	}

	@Test
	void aDeclaredQueueNameCloseToAHandledOneIsExplained(RedisServer server, CapturedOutput output) {
		assertThatException().isThrownBy(() -> start(server, PaymentTimeouts.class,
				"baton.queue.queues.payment-timeot.concurrency=2"));

		String report = output.getAll().substring(output.getAll().lastIndexOf("APPLICATION FAILED TO START"));
		assertThat(report).contains("baton.queue.queues.payment-timeot")
			.contains("did you mean 'payment-timeout'")
			.doesNotContain("\tat ");
	}

	private static void start(RedisServer server, Class<?> producer, String... properties) {
		new SpringApplicationBuilder(App.class, producer).web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
			.properties(properties)
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(PaymentTimeouts.class)
	static class App {

	}

	static class PaymentTimeouts {

		@DelayedTask(queue = "payment-timeout")
		public void cancel(Long orderId) {
		}

	}

	static class Producer {

		Producer(DelayQueue<String> timeouts) {
		}

	}

	static class QualifiedProducer {

		QualifiedProducer(@Qualifier("payment-timeout") DelayQueue<String> timeouts) {
		}

	}

}
