package dev.baton.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.autoconfigure.health.BatonHealthContributorAutoConfiguration;
import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockUnavailableException;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** An application with locks, a queue handler and health starts while Redis is down, as plain Spring Data Redis does. */
class RedisDownAtStartupTests {

	@Test
	void applicationStartsWithRedisDownAndWorksOnceRedisIsBack() {
		LocalRedisServer server = RedisServers.startLocal();
		int port = server.port();
		server.kill();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class,
					BatonHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"baton.lock.command-timeout=500ms")
			.withBean(Reminders.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				long start = System.nanoTime();
				assertThatExceptionOfType(LockUnavailableException.class)
					.isThrownBy(() -> context.getBean(LockManager.class).tryAcquire("job", Duration.ZERO));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

				server.restart();
				context.getBean(LockManager.class).tryAcquire("job", Duration.ZERO).orElseThrow().release();
				context.getBean("baton.queue.reminders", DelayQueue.class).schedule("r-1", "hello", Duration.ZERO);
				Reminders reminders = context.getBean(Reminders.class);
				await().atMost(Duration.ofSeconds(15)).until(() -> reminders.handled.contains("hello"));
			});
		server.close();
	}

	static class Reminders {

		final List<String> handled = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "reminders")
		void remind(String text) {
			this.handled.add(text);
		}

	}

}
