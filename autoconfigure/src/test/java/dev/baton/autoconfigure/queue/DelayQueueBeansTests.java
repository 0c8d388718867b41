package dev.baton.autoconfigure.queue;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** Queue beans never collide with the application's beans and never cross between queues. */
@RedisTest
class DelayQueueBeansTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void queueNamedLikeAnApplicationBeanIsStillInjected() {
		// As in getting-started: the service is bean 'reminders' and handles queue 'reminders'.
		this.runner.withBean("reminders", Reminders.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("reminders")).isInstanceOf(Reminders.class);
			assertThat(context.getBean(Reminders.class).queue.name()).isEqualTo("reminders");
		});
	}

	@Test
	void qualifierSelectsTheQueueOfThatNameAmongQueuesOfOnePayloadType() {
		this.runner.withPropertyValues("baton.queue.queues.flaky.payload-type=java.lang.String",
				"baton.queue.queues.steady.payload-type=java.lang.String")
			.withBean("flaky", Unrelated.class)
			.withBean(QualifiedUser.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QualifiedUser.class).flaky.name()).isEqualTo("flaky");
				assertThat(context.getBean(QualifiedUser.class).steady.name()).isEqualTo("steady");
			});
	}

	@Test
	void injectionByTypeAloneAmongSeveralQueuesFailsNamingThemAndTheQualifier() {
		this.runner.withPropertyValues("baton.queue.queues.flaky.payload-type=java.lang.String",
				"baton.queue.queues.steady.payload-type=java.lang.String")
			.withBean("flaky", Unrelated.class)
			.withBean(UnqualifiedUser.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				NoUniqueBeanDefinitionException ambiguous = (NoUniqueBeanDefinitionException) NestedExceptionUtils
					.getMostSpecificCause(failure);
				FailureAnalysis analysis = new AmbiguousDelayQueueFailureAnalyzer().analyze(failure);
				assertThat(ambiguous.getBeanNamesFound()).containsExactlyInAnyOrder("baton.queue.flaky",
						"baton.queue.steady");
				assertThat(analysis.getDescription()).contains("'flaky', 'steady'");
				assertThat(analysis.getAction()).contains("@Qualifier(\"flaky\")");
			});
	}

	static class Reminders {

		final DelayQueue<String> queue;

		Reminders(DelayQueue<String> queue) {
			this.queue = queue;
		}

		@DelayedTask(queue = "reminders")
		void remind(String text) {
		}

	}

	static class Unrelated {

	}

	static class QualifiedUser {

		final DelayQueue<String> flaky;

		final DelayQueue<String> steady;

		QualifiedUser(@Qualifier("flaky") DelayQueue<String> flaky, @Qualifier("steady") DelayQueue<String> steady) {
			this.flaky = flaky;
			this.steady = steady;
		}

	}

	static class UnqualifiedUser {

		UnqualifiedUser(DelayQueue<String> flaky) {
		}

	}

}
