package dev.baton.autoconfigure.lifecycle;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Everything Baton starts, it stops: an application context that locked, waited for a lock,
 * scheduled and handled tasks, closed twenty times in one JVM (tests, devtools restarts), leaves
 * no Baton thread behind: no handler thread, no pub/sub listener thread.
 */
@RedisTest
class NoThreadLeftBehindTests {

	@Test
	void aContextClosedTwentyTimesLeavesNoBatonThread(RedisServer server) {
		// Other tests of this JVM may leave threads of their own: only new ones count.
		Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					AopAutoConfiguration.class, BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
			.withBean(SimpleMeterRegistry.class)
			.withBean(Reminders.class)
			.withBean(Settlement.class);
		for (int run = 0; run < 20; run++) {
			runner.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(Settlement.class).settle();
				LockManager locks = context.getBean(LockManager.class);
				locks.tryAcquire("report", Duration.ofSeconds(1)).orElseThrow().release();
				// A wait subscribes to the release channel, whose messages reach waiters on a thread of their own.
				context.getBean(StringRedisTemplate.class)
					.opsForValue()
					.set("baton:lock:{busy}", "someone else", Duration.ofSeconds(5));
				assertThat(locks.tryAcquire("busy", Duration.ofMillis(200))).isEmpty();
				Reminders reminders = context.getBean(Reminders.class);
				context.getBean(DelayQueues.class).get("reminders", String.class).schedule("r-1", "x", Duration.ZERO);
				assertThat(reminders.handled.await(10, TimeUnit.SECONDS)).isTrue();
				// Every kind of thread that could be left behind ran: handlers, and both subscriptions' listeners.
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(batonThreadsBut(before)).contains("baton-queue-reminders-1",
							"baton-queue-wake-ups", "baton-lock-waiters"));
				// A scrape reads the queue gauges, which refresh on a thread of their own.
				assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.queue.depth").gauges())
					.allSatisfy((gauge) -> assertThat(gauge.value()).isNotNegative());
			});
		}

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(batonThreadsBut(before)).isEmpty());
	}

	private static List<String> batonThreadsBut(Set<Thread> before) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && !before.contains(thread))
			.map(Thread::getName)
			.filter((name) -> name.startsWith("baton-"))
			.sorted()
			.toList();
	}

	static class Reminders {

		final CountDownLatch handled = new CountDownLatch(1);

		@DelayedTask(queue = "reminders")
		void remind(String reminder) {
			this.handled.countDown();
		}

	}

	static class Settlement {

		@DistributedLock(name = "settlement")
		void settle() {
		}

	}

}
