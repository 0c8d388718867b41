package dev.baton.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.annotation.DistributedLockConfiguration;
import dev.baton.lock.annotation.EnableDistributedLocks;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskConfiguration;
import dev.baton.queue.annotation.EnableDelayedTasks;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot switches Baton on through {@code @EnableDistributedLocks} and
 * {@code @EnableDelayedTasks}, once, whether or not the application adds them too. No Redis server
 * runs: the connection factory points at a closed port, so a bean that talked to Redis while the
 * context starts would fail it.
 */
class EnableAnnotationsAutoConfigurationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort,
					"spring.data.redis.connect-timeout=200ms", "baton.lock.command-timeout=200ms");
	}

	@Test
	void registersOneAdvisorPostProcessorAndRegistryUnderTheWellKnownNames() {
		this.runner.withBean(Locked.class).withBean(Reminders.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(DistributedLockAdvisor.class))
				.containsOnlyKeys(DistributedLockConfiguration.ADVISOR_BEAN_NAME);
			assertThat(context.getBeansOfType(DelayedTaskAnnotationBeanPostProcessor.class))
				.containsOnlyKeys(DelayedTaskConfiguration.ANNOTATION_PROCESSOR_BEAN_NAME);
			assertThat(context.getBeansOfType(DelayedTaskListenerRegistry.class))
				.containsOnlyKeys(DelayedTaskConfiguration.LISTENER_REGISTRY_BEAN_NAME);
			assertThat(AopUtils.isAopProxy(context.getBean(Locked.class))).isTrue();
			assertThat(context.getBean(DelayedTaskListenerRegistry.class).getEndpoints()).containsOnlyKeys("reminders");
		});
	}

	@Test
	void addsNoSecondAdvisorWhenTheApplicationEnablesLocksItself() {
		this.runner.withUserConfiguration(UserEnabledLocks.class).withBean(Locked.class).run((context) -> {
			assertThat(context.getBeansOfType(DistributedLockAdvisor.class))
				.containsOnlyKeys(DistributedLockConfiguration.ADVISOR_BEAN_NAME);
			assertThat(AopUtils.isAopProxy(context.getBean(Locked.class))).isTrue();
			// no baton.lock.aspect-order: the application's attribute stays
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(5);
		});
	}

	@Test
	void aspectOrderPropertyAppliesOverTheApplicationsAttribute() {
		this.runner.withUserConfiguration(UserEnabledLocks.class)
			.withPropertyValues("baton.lock.aspect-order=7")
			.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7));
	}

	@Test
	void aspectOrderPropertyReachesTheAutoConfiguredAdvisor() {
		this.runner.withPropertyValues("baton.lock.aspect-order=3")
			.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(3));
		this.runner.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
			.isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER));
	}

	@Test
	void anInvalidAdvisorPropertyFailsStartUpNamingIt() {
		this.runner.withBean(Locked.class)
			.withPropertyValues("baton.lock.max-keys=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid baton.lock.max-keys"));
	}

	@Test
	void lockAdvisorBacksOffWhenTheApplicationDeclaresOne() {
		this.runner
			.withBean("myAdvisor", DistributedLockAdvisor.class,
					() -> new DistributedLockAdvisor(() -> { throw new IllegalStateException(); }, Duration.ZERO))
			.run((context) -> assertThat(context.getBeansOfType(DistributedLockAdvisor.class))
				.containsOnlyKeys("myAdvisor"));
	}

	@Test
	void lockAdvisorIsNotRegisteredWhenLocksAreDisabled() {
		this.runner.withPropertyValues("baton.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class)
				.doesNotHaveBean(LockManager.class));
	}

	@Test
	void addsNoSecondPostProcessorOrRegistryWhenTheApplicationEnablesDelayedTasksItself() {
		this.runner.withUserConfiguration(UserEnabledDelayedTasks.class)
			.withBean(Reminders.class)
			.withPropertyValues("baton.queue.queues.reminders.concurrency=3")
			.run((context) -> {
				assertThat(context.getBeansOfType(DelayedTaskAnnotationBeanPostProcessor.class))
					.containsOnlyKeys(DelayedTaskConfiguration.ANNOTATION_PROCESSOR_BEAN_NAME);
				assertThat(context.getBeansOfType(DelayedTaskListenerRegistry.class))
					.containsOnlyKeys(DelayedTaskConfiguration.LISTENER_REGISTRY_BEAN_NAME);
				// Boot's settings reach the registry the application's annotation registered
				assertThat(context.getBean(DelayedTaskListenerRegistry.class).getEndpoints().get("reminders")
					.concurrency()).isEqualTo(3);
			});
	}

	@Test
	void keepsTheApplicationsPostProcessorAndAddsTheRegistry() {
		this.runner.withUserConfiguration(UserPostProcessor.class).withBean(Reminders.class).run((context) -> {
			assertThat(context.getBeansOfType(DelayedTaskAnnotationBeanPostProcessor.class))
				.containsOnlyKeys("myPostProcessor");
			assertThat(context).hasSingleBean(DelayedTaskListenerRegistry.class);
			assertThat(context.getBean(DelayedTaskListenerRegistry.class).getEndpoints()).containsOnlyKeys("reminders");
		});
	}

	@Test
	void keepsTheApplicationsRegistryAndAddsThePostProcessor() {
		this.runner.withUserConfiguration(UserRegistry.class)
			.withBean(Reminders.class)
			.run((context) -> {
				assertThat(context.getBeansOfType(DelayedTaskListenerRegistry.class)).containsOnlyKeys("myRegistry");
				assertThat(context).hasSingleBean(DelayedTaskAnnotationBeanPostProcessor.class);
				assertThat(context.getBean(DelayedTaskListenerRegistry.class).getEndpoints()).containsOnlyKeys("reminders");
			});
	}

	@Test
	void registersNoRegistryWithoutDelayQueues() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, BatonQueueAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueues.class);
				assertThat(context).doesNotHaveBean(DelayedTaskListenerRegistry.class);
				assertThat(context).hasSingleBean(DelayedTaskAnnotationBeanPostProcessor.class);
			});
	}

	@Test
	void registersNothingForDelayedTasksWhenQueuesAreDisabled() {
		this.runner.withPropertyValues("baton.queue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayedTaskAnnotationBeanPostProcessor.class)
				.doesNotHaveBean(DelayedTaskListenerRegistry.class));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(order = 5)
	static class UserEnabledLocks {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedTasks
	static class UserEnabledDelayedTasks {

	}

	@Configuration(proxyBeanMethods = false)
	static class UserPostProcessor {

		@Bean
		static DelayedTaskAnnotationBeanPostProcessor myPostProcessor() {
			return new DelayedTaskAnnotationBeanPostProcessor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistry {

		@Bean
		DelayedTaskListenerRegistry myRegistry(DelayQueues delayQueues) {
			return DelayedTaskListenerRegistry.builder(delayQueues).build();
		}

	}

	static class Locked {

		@DistributedLock(name = "job")
		public void run() {
		}

	}

	static class Reminders {

		@DelayedTask(queue = "reminders")
		void remind(String text) {
		}

	}

}
