package dev.baton.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What delayed tasks promise on every Redis deployment; each backend's subclass runs it. One
 * instance consumes, another produces; the consumer polls only once a minute, so tasks run
 * quickly only if wake-ups cross the deployment's pub/sub.
 */
abstract class QueueContractTests extends ContractSuite {

	/** Queues named so that on a cluster they land on more than one primary. */
	static final List<String> QUEUES = List.of("orders", "invoices", "emails");

	/** Two of the queues are partitioned, so that the contract holds across partitions too. */
	static final ToIntFunction<String> PARTITIONS = (name) -> switch (name) {
		case "orders" -> 12;
		case "invoices" -> 3;
		default -> 1;
	};

	private final List<AutoCloseable> instances = new ArrayList<>();

	private Handlers handlers;

	private RedisDelayQueues producer;

	@BeforeEach
	void startInstances() {
		this.handlers = new Handlers();
		Handlers handlers = this.handlers;
		RedisConnectionFactory consumerConnection = backend().connect();
		RedisDelayQueues consumerQueues = RedisDelayQueues.builder(consumerConnection, JsonMapper.builder().build())
			.keyPrefix(prefix())
			.partitions(PARTITIONS)
			.build();
		GenericApplicationContext consumer = new GenericApplicationContext();
		consumer.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		consumer.registerBean(DelayedTaskListenerRegistry.class, () -> DelayedTaskListenerRegistry.builder(consumerQueues)
			.settings((queue) -> new ListenerSettings(2, ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(30),
					32, 0, Duration.ofSeconds(60), Duration.ofSeconds(2)))
			.build());
		consumer.registerBean(Handlers.class, () -> handlers);
		consumer.refresh();
		this.instances.add(consumer::close);
		this.instances.add(consumerQueues);
		this.producer = RedisDelayQueues.builder(backend().connect(), JsonMapper.builder().build())
			.keyPrefix(prefix())
			.partitions(PARTITIONS)
			.build();
		this.instances.add(this.producer);
	}

	/** Keys of their own per test, so that tests need not empty the deployment. */
	String prefix() {
		return "contract:" + System.identityHashCode(this.handlers) + ":";
	}

	@AfterEach
	void stopInstances() throws Exception {
		for (AutoCloseable instance : this.instances) {
			instance.close();
		}
		this.instances.clear();
	}

	/** The producing instance's queues. */
	RedisDelayQueues producer() {
		return this.producer;
	}

	@Test
	void everyTaskOfEveryQueueRunsOnceAndSoonAfterItFallsDue() {
		for (String name : QUEUES) {
			DelayQueue<String> queue = this.producer.get(name, String.class);
			for (int i = 0; i < 20; i++) {
				queue.schedule(name + "-" + i, "ok", Duration.ofMillis(100 * (i % 3)));
			}
		}

		await().atMost(Duration.ofSeconds(20)).until(() -> this.handlers.runs.get() == QUEUES.size() * 20);
		assertThat(this.handlers.handled).hasSize(QUEUES.size() * 20);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> QUEUES.stream().allMatch((name) -> this.producer.get(name, String.class).stats().inFlight() == 0));
	}

	@Test
	void aTaskThatKeepsFailingIsDeadLetteredAndRunsAgainOnceRedriven() {
		DelayQueue<String> orders = this.producer.get("orders", String.class);
		orders.schedule("broken", "fail", Duration.ZERO);

		await().atMost(Duration.ofSeconds(20)).until(() -> orders.stats().dead() == 1);
		assertThat(orders.deadLetters(10)).singleElement().satisfies((dead) -> assertThat(dead.attempts()).isEqualTo(2));
		assertThat(orders.redrive("broken")).isTrue();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.handlers.failures.get() == 4);
	}

	@Test
	void aTaskCanBeMovedOrCancelledWhileItWaits() {
		DelayQueue<String> invoices = this.producer.get("invoices", String.class);
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
