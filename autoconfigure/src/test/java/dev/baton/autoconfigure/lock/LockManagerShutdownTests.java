package dev.baton.autoconfigure.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A graceful shutdown while a {@code @Scheduled @DistributedLock} job runs, watched by a second
 * instance that tries to take the job's lock all the while.
 */
@RedisTest
class LockManagerShutdownTests {

	private ApplicationContextRunner runner;

	private StringRedisTemplate redis;

	private RedisLockManager otherInstance;

	@BeforeEach
	void setUp(RedisServer server, StringRedisTemplate redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.otherInstance = RedisLockManager.builder(connectionFactory).build();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonLockAutoConfiguration.class,
					TaskSchedulingAutoConfiguration.class, LifecycleAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"baton.lock.lease-time=900ms")
			.withUserConfiguration(NightlyJobConfiguration.class);
	}

	@AfterEach
	void closeOtherInstance() {
		this.otherInstance.close();
	}

	@Test
	void runningJobKeepsItsLockThroughShutdownAndReleasesItOnReturn() {
		this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=20s", "job.millis=2500")
			.run((context) -> {
				NightlyJob job = context.getBean(NightlyJob.class);
				assertThat(job.awaitStart()).isTrue();
				CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);

				AtomicInteger stolen = new AtomicInteger();
				while (!closing.isDone()) {
					this.otherInstance.tryAcquire("nightly", Duration.ZERO).ifPresent((lease) -> {
						if (!job.isFinished()) {
							stolen.incrementAndGet();
						}
						lease.release();
					});
					Thread.sleep(50);
				}
				closing.join();
				assertThat(job.isFinished()).as("the job ran to its end").isTrue();
				assertThat(stolen).as("times the other instance took the lock while the job ran").hasValue(0);
				assertThat(this.redis.hasKey("baton:lock:{nightly}")).as("released on return").isFalse();
			});
	}

	@Test
	void lockOfAJobThatOutlivesTheShutdownBudgetIsLeftToExpireNotDeleted() {
		this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=300ms", "job.millis=5000")
			.run((context) -> {
				NightlyJob job = context.getBean(NightlyJob.class);
				assertThat(job.awaitStart()).isTrue();

				context.close();

				assertThat(job.isFinished()).isFalse();
				assertThat(this.redis.opsForValue().get("baton:lock:{nightly}")).as("still the job's lock").isNotNull();
				assertThat(this.otherInstance.tryAcquire("nightly", Duration.ZERO)).isEmpty();
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class NightlyJobConfiguration {

		@Bean
		NightlyJob nightlyJob(org.springframework.core.env.Environment environment) {
			return new NightlyJob(environment.getRequiredProperty("job.millis", Long.class));
		}

	}

	static class NightlyJob {

		private final CountDownLatch started = new CountDownLatch(1);

		private final long millis;

		private volatile boolean finished;

		NightlyJob(long millis) {
			this.millis = millis;
		}

		public boolean awaitStart() throws InterruptedException {
			return this.started.await(10, TimeUnit.SECONDS);
		}

		public boolean isFinished() {
			return this.finished;
		}

		@Scheduled(fixedDelay = 60_000)
		@DistributedLock(name = "nightly")
		public void run() throws InterruptedException {
			this.started.countDown();
			Thread.sleep(this.millis);
			this.finished = true;
		}

	}

}
