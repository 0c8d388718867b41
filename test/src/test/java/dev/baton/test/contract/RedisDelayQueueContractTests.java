package dev.baton.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue contract for Baton's {@link RedisDelayQueues} on one Redis deployment, started
 * before the tests and stopped after; each deployment's subclass runs it. Besides the published
 * {@link DelayQueueContractTests}, it checks delivery through the listener container, which
 * only Redis queues have for now: one instance consumes, another produces; the consumer polls
 * only once a minute, so tasks run quickly only if wake-ups cross the deployment's pub/sub.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisDelayQueueContractTests extends DelayQueueContractTests {

	/** Queues of the listener tests, named so that on a cluster they land on more than one primary. */
	static final List<String> QUEUES = List.of("orders", "invoices", "emails");

	/** Queues named like two of them are partitioned, so that the contract holds across partitions too. */
	static final ToIntFunction<String> PARTITIONS = (name) -> {
		if (name.startsWith("orders")) {
			return 12;
		}
		return name.startsWith("invoices") ? 3 : 1;
	};

	@RegisterExtension
	final RedisDeployment deployment = new RedisDeployment(this::startBackend);

	private final List<AutoCloseable> instances = new ArrayList<>();

	private String prefix = "";

	private Handlers handlers = new Handlers();

	private RedisDelayQueues producer;

	/** Starts the deployment this suite runs against. */
	abstract RedisBackend startBackend();

	@BeforeEach
	void newPrefix() {
		this.prefix = "contract:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		this.handlers = new Handlers();
	}

	@AfterEach
	void stopInstances() throws Exception {
		for (AutoCloseable instance : this.instances) {
			instance.close();
		}
		this.instances.clear();
		this.producer = null;
	}

	@Override
	protected DelayQueues createDelayQueues() {
		return queues(this.deployment.backend().connect());
	}

	private RedisDelayQueues queues(RedisConnectionFactory connection) {
		RedisDelayQueues queues = RedisDelayQueues.builder(connection, JsonMapper.builder().build())
			.keyPrefix(this.prefix)
			.partitions(PARTITIONS)
			.build();
		this.instances.add(queues);
		return queues;
	}

	/** Keys of their own per test, so that tests need not empty the deployment. */
	String prefix() {
		return this.prefix;
	}

	RedisBackend backend() {
		return this.deployment.backend();
	}

	/** A producing instance. */
	RedisDelayQueues producer() {
		if (this.producer == null) {
			this.producer = queues(this.deployment.backend().connect());
		}
		return this.producer;
	}

	/** Starts a consuming instance: a context with {@link Handlers} for {@link #QUEUES}. */
	void startConsumer() {
		Handlers handlers = this.handlers;
		RedisDelayQueues consumerQueues = queues(this.deployment.backend().connect());
		GenericApplicationContext consumer = new GenericApplicationContext();
		consumer.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		consumer.registerBean(DelayedTaskListenerRegistry.class, () -> DelayedTaskListenerRegistry.builder(consumerQueues)
			.settings((queue) -> new ListenerSettings(2, ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(30),
					32, 0, Duration.ofSeconds(60), Duration.ofSeconds(2)))
			.build());
		consumer.registerBean(Handlers.class, () -> handlers);
		consumer.refresh();
		this.instances.add(0, consumer::close);
	}

	@Test
	void everyTaskOfEveryQueueRunsOnceAndSoonAfterItFallsDue() {
		startConsumer();
		for (String name : QUEUES) {
			DelayQueue<String> queue = producer().get(name, String.class);
			for (int i = 0; i < 20; i++) {
				queue.schedule(name + "-" + i, "ok", Duration.ofMillis(100 * (i % 3)));
			}
		}

		await().atMost(Duration.ofSeconds(20)).until(() -> this.handlers.runs.get() == QUEUES.size() * 20);
		assertThat(this.handlers.handled).hasSize(QUEUES.size() * 20);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> QUEUES.stream().allMatch((name) -> producer().get(name, String.class).stats().inFlight() == 0));
	}

	@Test
	void aTaskThatKeepsFailingIsDeadLetteredAndRunsAgainOnceRedriven() {
		startConsumer();
		DelayQueue<String> orders = producer().get("orders", String.class);
		orders.schedule("broken", "fail", Duration.ZERO);

		await().atMost(Duration.ofSeconds(20)).until(() -> orders.stats().dead() == 1);
		assertThat(orders.deadLetters(10)).singleElement().satisfies((dead) -> assertThat(dead.attempts()).isEqualTo(2));
		assertThat(orders.redrive("broken")).isTrue();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.handlers.failures.get() == 4);
	}

	@Test
	void aTaskCanBeMovedOrCancelledWhileItWaits() {
		startConsumer();
		DelayQueue<String> invoices = producer().get("invoices", String.class);
		invoices.schedule("later", "ok", Duration.ofHours(1));
		invoices.schedule("never", "ok", Duration.ofHours(1));

		assertThat(invoices.cancel("never")).isTrue();
		assertThat(invoices.reschedule("later", Duration.ZERO)).isTrue();

		await().atMost(Duration.ofSeconds(20)).until(() -> this.handlers.handled.contains("invoices:later"));
		assertThat(this.handlers.handled).doesNotContain("invoices:never");
	}

	static class Handlers {

		final Set<String> handled = ConcurrentHashMap.newKeySet();

		final AtomicInteger runs = new AtomicInteger();

		final AtomicInteger failures = new AtomicInteger();

		@DelayedTask(queue = "orders")
		void orders(String payload, TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "invoices")
		void invoices(String payload, TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "emails")
		void emails(String payload, TaskContext task) {
			handle(payload, task);
		}

		private void handle(String payload, TaskContext task) {
			if (payload.equals("fail")) {
				this.failures.incrementAndGet();
				throw new IllegalStateException("broken task");
			}
			this.runs.incrementAndGet();
			this.handled.add(task.queue() + ":" + task.id());
		}

	}

}
