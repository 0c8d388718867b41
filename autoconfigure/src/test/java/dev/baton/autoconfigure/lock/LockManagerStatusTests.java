package dev.baton.autoconfigure.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.baton.autoconfigure.actuate.BatonEndpoint;
import dev.baton.autoconfigure.actuate.BatonEndpointAutoConfiguration;
import dev.baton.autoconfigure.health.BatonHealthContributorAutoConfiguration;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import dev.baton.test.lock.InMemoryLockManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.Mockito.mock;

/**
 * Health, actuator endpoint and graceful shutdown of an application's own {@link LockManager}:
 * present when it is a {@link dev.baton.lock.LockManagerStatus}, absent but harmless when not.
 */
@RedisTest
class LockManagerStatusTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonLockAutoConfiguration.class,
					BatonHealthContributorAutoConfiguration.class, BatonEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"management.endpoints.web.exposure.include=baton");
	}

	@Test
	void aLockManagerThatReportsItsStatusGetsHealthEndpointAndShutdown() {
		this.runner.withBean(InMemoryLockManager.class, InMemoryLockManager::new).run((context) -> {
			assertThat(context).doesNotHaveBean(RedisLockManager.class).hasSingleBean(LockManagerShutdown.class);
			InMemoryLockManager locks = context.getBean(InMemoryLockManager.class);
			LockLease lease = locks.tryAcquire("report", Duration.ZERO).orElseThrow();

			Health health = locksHealth(context).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("heldLocks", 1).containsEntry("roundTripMillis", 0L);
			assertThat(context.getBean(BatonEndpoint.class).baton().locks()).singleElement()
				.satisfies((held) -> assertThat(held.name()).isEqualTo("report"));

			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			Thread.sleep(300);
			assertThat(closing).as("shutdown waits for the held lock").isNotDone();
			lease.release();
			assertThat(closing).succeedsWithin(Duration.ofSeconds(5));
			assertThatIllegalStateException().as("closed by the shutdown")
				.isThrownBy(() -> locks.tryAcquire("another", Duration.ZERO));
		});
	}

	@Test
	void aLockManagerWithoutStatusGetsNeitherHealthNorShutdown() {
		this.runner.withBean(LockManager.class, () -> mock(LockManager.class)).run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockManager.class)
				.doesNotHaveBean(LockManagerShutdown.class);
			assertThat(context.getBean("batonHealthContributor", CompositeHealthContributor.class)
				.getContributor("locks")).isNull();
			assertThat(context.getBean(BatonEndpoint.class).baton().locks()).isEmpty();
		});
	}

	private static HealthIndicator locksHealth(AssertableApplicationContext context) {
		return (HealthIndicator) context.getBean("batonHealthContributor", CompositeHealthContributor.class)
			.getContributor("locks");
	}

}
