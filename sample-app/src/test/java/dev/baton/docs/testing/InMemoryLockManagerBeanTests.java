package dev.baton.docs.testing;

import java.time.Duration;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.test.lock.InMemoryLockManager;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** docs/testing.md: an InMemoryLockManager bean replaces the Redis one, and @DistributedLock locks through it. */
class InMemoryLockManagerBeanTests {

	@Test
	void distributedLockMethodsLockThroughAnInMemoryLockManagerBean() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonLockAutoConfiguration.class))
			.withBean(InMemoryLockManager.class, InMemoryLockManager::new)
			.withBean(NightlyReport.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockManager.class);
				NightlyReport report = context.getBean(NightlyReport.class);
				assertThat(report.run()).isEqualTo("ran");

				InMemoryLockManager locks = context.getBean(InMemoryLockManager.class);
				locks.anotherInstance().tryAcquire("nightly-report", Duration.ZERO).orElseThrow();
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(report::run);
			});
	}

	static class NightlyReport {

		@DistributedLock(name = "nightly-report")
		public String run() {
			return "ran";
		}

	}

}
