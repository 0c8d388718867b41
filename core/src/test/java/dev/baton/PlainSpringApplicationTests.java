package dev.baton;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.annotation.DistributedLockAdvisorCustomizer;
import dev.baton.lock.annotation.DistributedLockConfiguration;
import dev.baton.lock.annotation.EnableDistributedLocks;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskConfiguration;
import dev.baton.queue.annotation.EnableDelayedTasks;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.DelayedTaskListenerRegistryBuilderCustomizer;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An application without Spring Boot switches Baton on with {@code @EnableDistributedLocks} and
 * {@code @EnableDelayedTasks}, declaring only its connection factory, lock manager and queues.
 */
@RedisTest
class PlainSpringApplicationTests {

	@Test
	void locksMethodsAndRunsHandlers(RedisServer server) throws Exception {
		try (AnnotationConfigApplicationContext context = context(server, BatonConfiguration.class)) {
			assertThat(context.getBeansOfType(DistributedLockAdvisor.class))
				.containsOnlyKeys(DistributedLockConfiguration.ADVISOR_BEAN_NAME);
			assertThat(context.getBeansOfType(DelayedTaskAnnotationBeanPostProcessor.class))
				.containsOnlyKeys(DelayedTaskConfiguration.ANNOTATION_PROCESSOR_BEAN_NAME);
			assertThat(context.getBeansOfType(DelayedTaskListenerRegistry.class))
				.containsOnlyKeys(DelayedTaskConfiguration.LISTENER_REGISTRY_BEAN_NAME);

			Counter counter = context.getBean(Counter.class);
			assertThat(AopUtils.isAopProxy(counter)).isTrue();
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				Runnable tenCalls = () -> {
					for (int i = 0; i < 10; i++) {
						counter.once();
					}
				};
				List<Future<?>> runs = List.of(threads.submit(tenCalls), threads.submit(tenCalls));
				for (Future<?> run : runs) {
					run.get(30, TimeUnit.SECONDS);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(counter.calls()).hasValue(20);
			assertThat(counter.mostAtOnce()).hasValue(1);

			context.getBean(DelayQueues.class).get("greetings", String.class).schedule("hello", Duration.ZERO);
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(greeter.received.await(15, TimeUnit.SECONDS)).isTrue();
			assertThat(greeter.payloads).containsExactly("hello");
		}
	}

	@Test
	void takesTheLockBeforeTheTransactionBegins(RedisServer server) {
		try (AnnotationConfigApplicationContext context = context(server, TransactionalConfiguration.class)) {
			context.getBean(Payments.class).pay();
			assertThat(context.getBean(RecordingTransactionManager.class).lockHeldAtBegin).containsExactly(true);
		}
	}

	@Test
	void appliesTheAnnotationsAttributesThenCustomizers(RedisServer server) {
		try (AnnotationConfigApplicationContext context = context(server, CustomizedConfiguration.class)) {
			DistributedLockAdvisor advisor = context.getBean(DistributedLockAdvisor.class);
			assertThat(advisor.getOrder()).isEqualTo(42);
			// the customizer's default wait time: the call waits for the lock another holder releases
			LockManager locks = context.getBean(LockManager.class);
			LockLease held = locks.tryAcquire("slow", Duration.ZERO).orElseThrow();
			ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
			try {
				Runnable release = held::release;
				releaser.schedule(release, 300, TimeUnit.MILLISECONDS);
				assertThat(context.getBean(Slow.class).run()).isTrue();
			}
			finally {
				releaser.shutdown();
			}
			assertThat(context.getBean(CustomizedConfiguration.class).registryCustomized).hasValue(1);
		}
	}

	@Test
	void failOnUnproxiedCallsFailsStartUpOnASelfInvocation(RedisServer server) {
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(() -> context(server, StrictConfiguration.class).close())
			.withStackTraceContaining("is bypassed by the call");
	}

	private static AnnotationConfigApplicationContext context(RedisServer server, Class<?> configuration) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(server.host(), server.port()));
		context.register(configuration);
		context.refresh();
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks
	@EnableDelayedTasks
	static class BatonConfiguration {

		@Bean
		RedisLockManager lockManager(RedisConnectionFactory connectionFactory) {
			return RedisLockManager.builder(connectionFactory).keyPrefix("plain:lock:").build();
		}

		@Bean
		RedisDelayQueues delayQueues(RedisConnectionFactory connectionFactory) {
			return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.keyPrefix("plain:queue:" + System.nanoTime() + ":")
				.build();
		}

		@Bean
		Counter counter() {
			return new Counter();
		}

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

	}

	public static class Counter {

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger mostAtOnce = new AtomicInteger();

		private final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(name = "counter", waitTime = "20s")
		public void once() {
			this.mostAtOnce.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.calls.incrementAndGet();
			this.running.decrementAndGet();
		}

		public AtomicInteger calls() {
			return this.calls;
		}

		public AtomicInteger mostAtOnce() {
			return this.mostAtOnce;
		}

	}

	public static class Greeter {

		final List<String> payloads = new CopyOnWriteArrayList<>();

		final CountDownLatch received = new CountDownLatch(1);

		@DelayedTask(queue = "greetings")
		public void greet(String payload) {
			this.payloads.add(payload);
			this.received.countDown();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks
	@EnableTransactionManagement
	static class TransactionalConfiguration {

		@Bean
		RedisLockManager lockManager(RedisConnectionFactory connectionFactory) {
			return RedisLockManager.builder(connectionFactory).keyPrefix("plain:tx:").build();
		}

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		}

		@Bean
		RecordingTransactionManager transactionManager(DataSource dataSource, RedisConnectionFactory connectionFactory) {
			return new RecordingTransactionManager(dataSource, new StringRedisTemplate(connectionFactory));
		}

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	/** Records, as each transaction begins, whether the lock of {@link Payments#pay()} is held. */
	static class RecordingTransactionManager extends DataSourceTransactionManager implements PlatformTransactionManager {

		final List<Boolean> lockHeldAtBegin = new CopyOnWriteArrayList<>();

		private final transient StringRedisTemplate redis;

		RecordingTransactionManager(DataSource dataSource, StringRedisTemplate redis) {
			super(dataSource);
			this.redis = redis;
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.lockHeldAtBegin.add(this.redis.hasKey("plain:tx:{payment}"));
			super.doBegin(transaction, definition);
		}

	}

	public static class Payments {

		@Transactional
		@DistributedLock(name = "payment")
		public void pay() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(order = 42)
	@EnableDelayedTasks
	static class CustomizedConfiguration {

		final AtomicInteger registryCustomized = new AtomicInteger();

		@Bean
		RedisLockManager lockManager(RedisConnectionFactory connectionFactory) {
			return RedisLockManager.builder(connectionFactory).keyPrefix("plain:custom:").build();
		}

		@Bean
		RedisDelayQueues delayQueues(RedisConnectionFactory connectionFactory) {
			return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.keyPrefix("plain:custom-queue:")
				.build();
		}

		@Bean
		DistributedLockAdvisorCustomizer waitLonger() {
			return (advisor) -> advisor.setDefaultWaitTime(Duration.ofSeconds(10));
		}

		@Bean
		DelayedTaskListenerRegistryBuilderCustomizer countingCustomizer() {
			return (builder) -> this.registryCustomized.incrementAndGet();
		}

		@Bean
		Slow slow() {
			return new Slow();
		}

	}

	public static class Slow {

		@DistributedLock(name = "slow")
		public boolean run() {
			return true;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(failOnUnproxiedCalls = true)
	static class StrictConfiguration {

		@Bean
		RedisLockManager lockManager(RedisConnectionFactory connectionFactory) {
			return RedisLockManager.builder(connectionFactory).keyPrefix("plain:strict:").build();
		}

		@Bean
		SelfCalling selfCalling() {
			return new SelfCalling();
		}

	}

	public static class SelfCalling {

		public void outer() {
			inner();
		}

		@DistributedLock(name = "inner")
		public void inner() {
		}

	}

}
