package dev.baton.autoconfigure.health;

import java.time.Duration;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@RedisTest
class BatonHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonLockAutoConfiguration.class,
					BatonHealthContributorAutoConfiguration.class));

	@Test
	void locksAreUpWhileRedisAnswersAndDownWithinTheCommandTimeoutWhenItDoesNot() {
		RedisServer server = RedisServers.startLocal();
		this.runner
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"baton.lock.command-timeout=300ms")
			.run((context) -> {
				HealthIndicator locks = locks(context.getBean("batonHealthContributor", CompositeHealthContributor.class));
				context.getBean(RedisLockManager.class).tryAcquire("job", Duration.ZERO).orElseThrow();
				Health up = locks.health();
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("heldLocks", 1).containsKey("roundTripMillis");

				server.close();
				long start = System.nanoTime();
				Health down = locks.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			});
	}

	@Test
	void queuesAreUpWhileListenersClaimAndDownWhenTheirClaimsKeepFailing() {
		RedisServer server = RedisServers.startLocal();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonQueueAutoConfiguration.class, BatonHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.data.redis.timeout=200ms", "baton.queue.max-idle-poll=50ms")
			.withBean(Reminders.class)
			.run((context) -> {
				HealthIndicator queues = (HealthIndicator) context
					.getBean("batonHealthContributor", CompositeHealthContributor.class)
					.getContributor("queues");
				await().atMost(Duration.ofSeconds(5)).until(() -> queues.health().getStatus().equals(Status.UP)
						&& queues.health().getDetails().containsKey("reminders"));

				server.close();
				await().atMost(Duration.ofSeconds(15)).until(() -> queues.health().getStatus().equals(Status.DOWN));
				assertThat(queues.health().getDetails().get("reminders")).asString()
					.contains("progressing=false", "stall=claims keep failing");
			});
	}

	static class Reminders {

		@DelayedTask(queue = "reminders")
		void remind(String text) {
		}

	}

	@Test
	void backsOffWhenDisabled(RedisServer server) {
		this.runner
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"management.health.baton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("batonHealthContributor"));
	}

	private static HealthIndicator locks(CompositeHealthContributor baton) {
		return (HealthIndicator) baton.getContributor("locks");
	}

}
