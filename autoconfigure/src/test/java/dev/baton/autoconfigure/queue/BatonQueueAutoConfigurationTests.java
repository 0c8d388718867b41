package dev.baton.autoconfigure.queue;

import java.util.concurrent.atomic.AtomicInteger;
import dev.baton.queue.listener.DelayedTaskErrorHandler;
import dev.baton.queue.listener.DefaultDelayedTaskErrorHandler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.PayloadEnvelope;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskContainer;
import dev.baton.queue.listener.DelayedTaskListenerContainerFactory;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.DelayedTaskListenerStatus;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

@RedisTest
class BatonQueueAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					BatonQueueAutoConfiguration.class));

	@Test
	void aUsersErrorHandlerReplacesTheDefaultAndDecidesRetries(RedisServer server) {
		redis(server).withUserConfiguration(NotRetryingConfiguration.class)
			.withPropertyValues("baton.queue.max-attempts=5", "baton.queue.backoff.initial=10ms")
			.run((context) -> {
				assertThat(context).getBean(DelayedTaskErrorHandler.class).isSameAs(context.getBean("notRetrying"));
				DelayQueues queues = context.getBean(DelayQueues.class);
				queues.get("refunds", String.class).schedule("r-1", "bad refund", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queues.get("refunds", String.class).deadLetters(10).size() == 1);
				// Five attempts by the settings; the handler gives up on the first.
				assertThat(context.getBean(RejectedRefunds.class).attempts).hasValue(1);
			});
	}

	@Test
	void aUsersContainerFactoryCreatesTheContainers(RedisServer server) {
		redis(server).withUserConfiguration(RecordingContainersConfiguration.class).run((context) -> {
			DelayedTaskListenerRegistry registry = context.getBean(DelayedTaskListenerRegistry.class);
			assertThat(registry.getContainers()).singleElement().isInstanceOfSatisfying(RecordingContainer.class,
					(container) -> {
						assertThat(container.getQueueName()).isEqualTo("refunds");
						assertThat(container.isRunning()).isTrue();
					});
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingContainersConfiguration {

		@Bean
		DelayedTaskListenerContainerFactory recordingContainers() {
			return (endpoint) -> new RecordingContainer(endpoint.queue());
		}

		@Bean
		RejectedRefunds rejectedRefunds() {
			return new RejectedRefunds();
		}

	}

	/** Consumes nothing: shows which factory made it and that the registry started it. */
	static final class RecordingContainer implements DelayedTaskContainer {

		private final String queue;

		private volatile boolean running;

		RecordingContainer(String queue) {
			this.queue = queue;
		}

		@Override
		public String getQueueName() {
			return this.queue;
		}

		@Override
		public DelayedTaskListenerStatus getStatus() {
			return new DelayedTaskListenerStatus(this.queue, this.running, null, this.running, null);
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public void stop(Duration maxWait) {
			stop();
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotRetryingConfiguration {

		@Bean
		DelayedTaskErrorHandler notRetrying() {
			return new DefaultDelayedTaskErrorHandler().addNotRetryableExceptions(IllegalArgumentException.class);
		}

		@Bean
		RejectedRefunds rejectedRefunds() {
			return new RejectedRefunds();
		}

	}

	static class RejectedRefunds {

		final AtomicInteger attempts = new AtomicInteger();

		@DelayedTask(queue = "refunds")
		void refund(String refund) {
			this.attempts.incrementAndGet();
			throw new IllegalArgumentException("not refundable");
		}

	}

	@Test
	void configuresQueuesPostProcessorAndRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisDelayQueues.class);
			assertThat(context).hasSingleBean(DelayedTaskAnnotationBeanPostProcessor.class);
			assertThat(context).hasSingleBean(DelayedTaskListenerRegistry.class);
			assertThat(context).hasBean("delayQueues");
		});
	}

	@Test
	void configuresNothingWhenDisabled() {
		this.contextRunner.withPropertyValues("baton.queue.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(DelayQueues.class);
			assertThat(context).doesNotHaveBean(DelayedTaskListenerRegistry.class);
		});
	}

	@Test
	void backsOffWhenUserDefinesDelayQueues() {
		this.contextRunner.withBean("myQueues", DelayQueues.class, UserQueues::new).run((context) -> {
			assertThat(context).hasSingleBean(DelayQueues.class);
			assertThat(context).hasBean("myQueues");
			assertThat(context).doesNotHaveBean(RedisDelayQueues.class);
		});
	}

	@Test
	void backsOffWhenUserDefinesListenerRegistry() {
		this.contextRunner
			.withBean("myRegistry", DelayedTaskListenerRegistry.class,
					() -> DelayedTaskListenerRegistry.builder(new UserQueues()).build())
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayedTaskListenerRegistry.class);
				assertThat(context).hasBean("myRegistry");
			});
	}

	@Test
	void backsOffWhenUserDefinesAnnotationPostProcessor() {
		this.contextRunner.withUserConfiguration(UserPostProcessorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(DelayedTaskAnnotationBeanPostProcessor.class);
			assertThat(context).hasBean("myPostProcessor");
		});
	}

	@Test
	void backsOffWhenUserDefinesQueueBeanRegistrar() {
		this.contextRunner.withUserConfiguration(UserRegistrarConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueBeanRegistrar.class);
			assertThat(context).hasBean("myRegistrar");
		});
	}

	@Test
	void appliesPerQueueSettingsOverDefaults() {
		this.contextRunner
			.withPropertyValues("baton.queue.max-attempts=7", "baton.queue.backoff.initial=2s",
					"baton.queue.queues.orders.visibility-timeout=1m", "baton.queue.queues.orders.backoff.max=10s",
					"baton.queue.max-deliveries=12", "baton.queue.queues.orders.max-deliveries=20",
					"baton.queue.queues.orders.payload-type=java.lang.Long")
			.run((context) -> {
				QueueSettings properties = new QueueSettings(context.getBean(BatonQueueProperties.class));
				ListenerSettings orders = properties.settings("orders");
				assertThat(orders.maxAttempts()).isEqualTo(7);
				assertThat(orders.visibilityTimeout()).isEqualTo(Duration.ofMinutes(1));
				assertThat(orders.backoff().initial()).isEqualTo(Duration.ofSeconds(2));
				assertThat(orders.backoff().max()).isEqualTo(Duration.ofSeconds(10));
				assertThat(orders.maxDeliveries()).isEqualTo(20);
				ListenerSettings other = properties.settings("other");
				assertThat(other.visibilityTimeout()).isEqualTo(Duration.ofSeconds(30));
				assertThat(other.batchSize()).isEqualTo(128);
				assertThat(other.shutdownTimeout()).isEqualTo(Duration.ofSeconds(25));
				assertThat(other.maxIdlePoll()).isEqualTo(Duration.ofSeconds(5));
				assertThat(other.maxDeliveries()).isEqualTo(12);
			});
	}

	@Test
	void injectsDelayQueueByGenericTypeAndQualifier(RedisServer server) {
		redis(server).withUserConfiguration(OrderApplication.class)
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("baton.queue.queues.numbers.payload-type=java.lang.Long")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				OrderService service = context.getBean(OrderService.class);
				assertThat(service.byType).isSameAs(service.byName);
				assertThat(context.getBean("baton.queue.numbers")).isInstanceOf(DelayQueue.class);

				service.byType.schedule("o-1", new Order("o-1", 3), Duration.ZERO);
				service.numbers.schedule("n-1", 42L, Duration.ofHours(1));

				OrderHandler handler = context.getBean(OrderHandler.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> handler.handled.size() == 1);
				assertThat(handler.handled).containsExactly(new Order("o-1", 3));
				assertThat(service.numbers.find("n-1")).hasValueSatisfying(
						(task) -> assertThat(task.payload()).isEqualTo(42L));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
						meters.find("baton.queue.handle").tags("queue", "orders", "outcome", "success").timer())
					.isNotNull());
				assertThat(meters.find("baton.queue.lateness").tag("queue", "orders").timer()).isNotNull();
			});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void warnsAtStartupWhenTheShutdownPhaseEndsBeforeTheShutdownTimeout(RedisServer server, CapturedOutput output) {
		redis(server).withBean(OrderHandler.class).run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("shutdown phase allows");
		// Stopping must end within the phase, or the context destroys beans under running handlers
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=10s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Queue 'orders' has a shutdown timeout of 25000 ms, but the context's "
				+ "shutdown phase allows stopping to wait only 7000 ms");
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void runsHandlersOnVirtualThreadsWhenEnabled(RedisServer server) {
		redis(server).withUserConfiguration(OrderApplication.class)
			.withPropertyValues("spring.threads.virtual.enabled=true",
					"baton.queue.queues.numbers.payload-type=java.lang.Long")
			.run((context) -> {
				context.getBean(OrderService.class).byType.schedule(new Order("v-1", 1), Duration.ZERO);
				OrderHandler handler = context.getBean(OrderHandler.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> handler.threads.size() == 1);
				assertThat(handler.threads.get(0).getClass().getName()).contains("VirtualThread");
				// Only platform threads are listed: the claim loop is virtual, the visibility timer is not.
				assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
					.contains("baton-queue-visibility-orders")
					.doesNotContain("baton-queue-orders");
			});
	}

	@Test
	void failsAtStartupForDeclaredQueueWithoutPayloadType() {
		this.contextRunner.withPropertyValues("baton.queue.queues.lonely.visibility-timeout=10s")
			.run((context) -> assertThat(mostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("Invalid setting of queue 'lonely': baton.queue.queues.lonely is declared")
				.hasMessageContaining("no payload-type"));
	}

	@Test
	void failsAtStartupForBadHandlerMethod() {
		this.contextRunner.withBean(BadHandler.class)
			.run((context) -> assertThat(mostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining(BadHandler.class.getName() + ".handle")
				.hasMessageContaining("exactly one payload parameter"));
	}

	@Test
	void failsAtStartupForTwoHandlersOfOneQueue(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withBean(SecondOrderHandler.class)
			.run((context) -> assertThat(mostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("Queue 'orders' has two @DelayedTask handlers"));
	}

	@Test
	void failsAtStartupNamingTheQueuePropertyThatIsOutOfRange(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.visibility-timeout=500us")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.queues.orders.visibility-timeout must be at least 1ms"));
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.batch-size=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.batch-size must be at least 1, was 0"));
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.max-deliveries=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.queues.orders.max-deliveries must be at least 1, was 0"));
	}

	@Test
	void failsAtStartupNamingTheDefaultVisibilityTimeoutWhenItIsNotPositive(RedisServer server) {
		for (String timeout : List.of("0s", "-5s")) {
			redis(server).withPropertyValues("baton.queue.visibility-timeout=" + timeout)
				.run((context) -> assertThat(mostSpecificCause(context.getStartupFailure()))
					.isInstanceOf(InvalidQueueSettingException.class)
					.hasMessageContaining("baton.queue.visibility-timeout must be at least 1ms"));
		}
	}

	@Test
	void failsAtStartupForAVisibilityTimeoutBeyondTheLimit(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.visibility-timeout=13h")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.queues.orders.visibility-timeout must be at most 12h, was PT13H"));
	}

	@Test
	void maxPayloadSizeLimitsWhatQueuesAccept(RedisServer server) {
		redis(server).withPropertyValues("baton.queue.max-payload-size=100B").run((context) -> {
			DelayQueue<Order> orders = context.getBean(DelayQueues.class).get("sized", Order.class);
			assertThat(orders.schedule(new Order("x".repeat(76), 1), Duration.ofHours(1))).isNotBlank();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> orders.schedule(new Order("x".repeat(77), 1), Duration.ofHours(1)))
				.withMessageContaining("101 bytes as JSON, more than the 100");
		});
	}

	@Test
	void storageFormatChoosesHowNewTasksAreStored(RedisServer server) {
		redis(server).withPropertyValues("baton.queue.storage-format=0").run((context) -> {
			context.getBean(DelayQueues.class).get("formats", Order.class).schedule("o-0", new Order("o-0", 1),
					Duration.ofHours(1));
			assertThat(context.getBean(StringRedisTemplate.class).hasKey("baton:q:{formats}:meta")).isTrue();
		});
		redis(server).run((context) -> {
			DelayQueue<Order> queue = context.getBean(DelayQueues.class).get("formats", Order.class);
			queue.schedule("o-1", new Order("o-1", 1), Duration.ofHours(1));
			assertThat(context.getBean(StringRedisTemplate.class).<String, String>opsForHash()
				.hasKey("baton:q:{formats}:meta", "o-1")).isFalse();
			assertThat(queue.find("o-0").orElseThrow().payload()).isEqualTo(new Order("o-0", 1));
			assertThat(queue.find("o-1").orElseThrow().payload()).isEqualTo(new Order("o-1", 1));
		});
		redis(server).withPropertyValues("baton.queue.storage-format=2")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("baton.queue.storage-format must be from 0 to 1, was 2"));
	}

	@Test
	void failureAnalyzerNamesThePropertyToChange(RedisServer server) {
		// Boot's own analyzers need constructor arguments that this plain load does not give
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, FailureHandler.handleMessage((message, failure) -> {
			})))
			.hasAtLeastOneElementOfType(InvalidQueueSettingFailureAnalyzer.class);
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.claim-ahead=-1s")
			.run((context) -> {
				FailureAnalysis analysis = new InvalidQueueSettingFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.isEqualTo("Invalid setting of queue 'orders': baton.queue.queues.orders.claim-ahead must not be "
							+ "negative, was PT-1S");
				assertThat(analysis.getAction()).startsWith("Change 'baton.queue.queues.orders.claim-ahead'");
			});
	}

	@Test
	void partitionedQueueRunsItsHandlerForTasksOfEveryPartition(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.key-prefix=partitioned:", "baton.queue.queues.orders.partitions=4")
			.run((context) -> {
				DelayQueue<Order> orders = context.getBean(DelayQueues.class).get("orders", Order.class);
				for (int i = 0; i < 40; i++) {
					orders.schedule(new Order("o-" + i, i), Duration.ofMillis(10 * i));
				}
				OrderHandler handler = context.getBean(OrderHandler.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> handler.handled.size() == 40);
				assertThat(handler.handled).doesNotHaveDuplicates();
				assertThat(context.getBean(StringRedisTemplate.class).keys("partitioned:{orders#3}:p3:*")).isNotEmpty();
			});
	}

	@Test
	void partitionCountThatWouldStrandStoredTasksFailsStartupNamingTheProperty(RedisServer server) {
		ApplicationContextRunner runner = redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.key-prefix=repartitioned:");
		runner.run((context) -> context.getBean(DelayQueues.class)
			.get("orders", Order.class)
			.schedule(new Order("o-1", 1), Duration.ofHours(1)));
		runner.withPropertyValues("baton.queue.queues.orders.partitions=8").run((context) -> {
			FailureAnalysis analysis = new PartitionCountChangeFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).startsWith("Queue 'orders' holds 1 task(s) placed in 1 partition(s)");
			assertThat(analysis.getAction()).startsWith("Set 'baton.queue.queues.orders.partitions' back to 1");
		});
		runner.withPropertyValues("baton.queue.queues.orders.partitions=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.queues.orders.partitions must be between 1 and 1024, was 0"));
	}

	@Test
	void deadLetterRetentionHasDefaultsAndPerQueueOverrides() {
		this.contextRunner
			.withPropertyValues("baton.queue.dead-letter-retention.max-age=7d",
					"baton.queue.queues.orders.dead-letter-retention.max-count=2",
					"baton.queue.queues.orders.payload-type=java.lang.String")
			.run((context) -> {
				QueueSettings properties = new QueueSettings(context.getBean(BatonQueueProperties.class));
				assertThat(properties.deadLetterRetention("orders"))
					.isEqualTo(new dev.baton.queue.DeadLetterRetention(2, Duration.ofDays(7)));
				assertThat(properties.deadLetterRetention("other"))
					.isEqualTo(new dev.baton.queue.DeadLetterRetention(Integer.MAX_VALUE, Duration.ofDays(7)));
			});
	}

	@Test
	void strictPayloadsApplyToTheQueuesThatSetThem(RedisServer server) {
		redis(server)
			.withPropertyValues("baton.queue.key-prefix=strict:", "baton.queue.queues.orders.strict-payloads=true",
					"baton.queue.queues.orders.payload-type=" + Order.class.getName())
			.run((context) -> {
				try (RedisDelayQueues writer = RedisDelayQueues
					.builder(context.getBean(RedisConnectionFactory.class), JsonMapper.builder().build())
					.keyPrefix("strict:")
					.build()) {
					writer.get("orders", PricedOrder.class).schedule("o-1", new PricedOrder("o-1", 3, "EUR"), Duration.ofHours(1));
					writer.get("refunds", PricedOrder.class).schedule("r-1", new PricedOrder("r-1", 3, "EUR"), Duration.ofHours(1));
				}
				DelayQueues queues = context.getBean(DelayQueues.class);

				assertThat(queues.get("orders", Order.class).find("o-1").orElseThrow().payload()).isNull();
				assertThat(queues.get("refunds", Order.class).find("r-1").orElseThrow().payload())
					.isEqualTo(new Order("r-1", 3));
			});
	}

	@Test
	void unsetPropertiesAreTheDefaultsOfTheCore() {
		QueueSettings properties = new QueueSettings(new BatonQueueProperties());

		assertThat(properties.settings("any")).isEqualTo(ListenerSettings.DEFAULTS);
		assertThat(properties.deadLetterRetention("any")).isEqualTo(dev.baton.queue.DeadLetterRetention.DEFAULT);
		assertThat(properties.deadLetterRetention("any").keepsAll()).isTrue();
	}

	@Test
	void concurrencyConfiguredForAQueueReplacesTheHandlers(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.concurrency=6")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(DelayedTaskListenerRegistry.class).getEndpoints().get("orders").concurrency())
					.isEqualTo(6);
			});
	}

	@Test
	void failsAtStartupNamingAnUnknownQueueProperty(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.queues.orders.concurency=6")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("baton.queue.queues.orders.concurency"));
	}

	@Test
	void failsAtStartupWhenConcurrencyAndPrefetchOverflowTheContainer(RedisServer server) {
		redis(server).withBean(OrderHandler.class)
			.withPropertyValues("baton.queue.prefetch=100000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("plus prefetch 100000 (baton.queue.prefetch) is more than the 100000 tasks"));
	}

	private static Throwable mostSpecificCause(Throwable failure) {
		return NestedExceptionUtils.getMostSpecificCause(failure);
	}

	@Test
	void deadLetterReasonBeanMakesTheReasonsOfHandlerFailuresAndUnreadablePayloads(RedisServer server) {
		redis(server).withUserConfiguration(RefundApplication.class).run((context) -> {
			DelayQueue<Order> refunds = context.getBean(RedisDelayQueues.class).get("refunds", Order.class);
			try (RedisDelayQueues writer = RedisDelayQueues
				.builder(context.getBean(RedisConnectionFactory.class), JsonMapper.builder().build())
				.build()) {
				writer.get("refunds", String.class).schedule("poison", "IBAN DE44500105175407324931", Duration.ZERO);
			}
			refunds.schedule("r-1", new Order("r-1", 3), Duration.ZERO);

			await().atMost(Duration.ofSeconds(10)).until(() -> refunds.deadLetters(10).size() == 2);
			assertThat(refunds.deadLetters(10)).extracting(DeadLetter::reason)
				.containsExactlyInAnyOrder("refund failed: IllegalStateException",
						"Payload cannot be read as " + Order.class.getName() + ": refund failed: "
								+ "MismatchedInputException");
		});
	}

	@Test
	void payloadEnvelopeBeanSealsEveryPayload(RedisServer server) {
		redis(server).withBean(PayloadEnvelope.class, () -> new PayloadEnvelope() {

			@Override
			public String seal(String queue, String id, String json) {
				return "sealed:" + json;
			}

			@Override
			public String open(String queue, String id, String stored) {
				return stored.substring("sealed:".length());
			}

		}).run((context) -> {
			DelayQueue<Order> orders = context.getBean(RedisDelayQueues.class).get("orders", Order.class);
			orders.schedule("o-1", new Order("o-1", 3), Duration.ofMinutes(1));

			assertThat(context.getBean(StringRedisTemplate.class).<String, String>opsForHash()
				.get("baton:q:{orders}:tasks", "o-1")).contains("sealed:{");
			assertThat(orders.find("o-1").orElseThrow().payload()).isEqualTo(new Order("o-1", 3));
		});
	}

	private ApplicationContextRunner redis(RedisServer server) {
		return this.contextRunner.withPropertyValues("spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port());
	}

	record Order(String number, int amount) {

	}

	/** An {@link Order} with a property that {@code Order} does not have. */
	record PricedOrder(String number, int amount, String currency) {

	}

	@Configuration(proxyBeanMethods = false)
	static class OrderApplication {

		@Bean
		OrderHandler orderHandler() {
			return new OrderHandler();
		}

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	static class OrderHandler {

		final List<Order> handled = new CopyOnWriteArrayList<>();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "orders")
		void handle(Order order, TaskContext context) {
			this.threads.add(Thread.currentThread());
			this.handled.add(order);
		}

	}

	static class SecondOrderHandler {

		@DelayedTask(queue = "orders")
		void handle(Order order) {
		}

	}

	static class BadHandler {

		@DelayedTask(queue = "bad")
		void handle(Order order, String other) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RefundApplication {

		@Bean
		DeadLetterReason deadLetterReason() {
			return (failure) -> "refund failed: " + failure.getClass().getSimpleName();
		}

		@Bean
		RefundHandler refundHandler() {
			return new RefundHandler();
		}

	}

	static class RefundHandler {

		@DelayedTask(queue = "refunds", maxAttempts = "1")
		void handle(Order order) {
			throw new IllegalStateException("Refund to DE44500105175407324931 failed");
		}

	}

	static class OrderService {

		@Autowired
		DelayQueue<Order> byType;

		@Autowired
		@Qualifier("orders")
		DelayQueue<Order> byName;

		@Autowired
		DelayQueue<Long> numbers;

	}

	@Configuration(proxyBeanMethods = false)
	static class UserPostProcessorConfiguration {

		@Bean
		static DelayedTaskAnnotationBeanPostProcessor myPostProcessor() {
			return new DelayedTaskAnnotationBeanPostProcessor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistrarConfiguration {

		@Bean
		static DelayQueueBeanRegistrar myRegistrar() {
			return new DelayQueueBeanRegistrar();
		}

	}

	static class UserQueues implements DelayQueues {

		@Override
		public <T> DelayQueue<T> get(String name, Class<T> payloadType) {
			throw new UnsupportedOperationException();
		}

	}

}
