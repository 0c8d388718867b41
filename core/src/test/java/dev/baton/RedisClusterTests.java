package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.LockLease;
import dev.baton.lock.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.listener.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks and delayed tasks on a Redis Cluster of 3 primaries: a lean set of the standalone
 * semantics, so that keys, scripts and pub/sub stay cluster-safe.
 */
class RedisClusterTests {

	private static LocalRedisCluster cluster;

	private static final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = RedisServers.startCluster(3);
	}

	@AfterAll
	static void stopCluster() {
		connectionFactories.forEach(LettuceConnectionFactory::destroy);
		cluster.close();
	}

	private static LettuceConnectionFactory connect() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodes()));
		factory.afterPropertiesSet();
		factory.start();
		connectionFactories.add(factory);
		return factory;
	}

	@Test
	void locksOnNamesAcrossEveryPrimaryExcludeEachOtherBetweenInstances() throws Exception {
		List<RedisLockManager> instances = List.of(RedisLockManager.builder(connect()).build(),
				RedisLockManager.builder(connect()).build());
		Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger acquired = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RedisLockManager manager = instances.get(t % 2);
				int seed = t;
				work.add(threads.submit(() -> {
					for (int i = 0; i < 40; i++) {
						String name = "stock:" + ((seed + i) % 12);
						try (LockLease lease = manager.tryAcquire(name, Duration.ofSeconds(5)).orElseThrow()) {
							if (holders.computeIfAbsent(name, (n) -> new AtomicInteger()).incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							acquired.incrementAndGet();
							holders.get(name).decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
			instances.forEach(RedisLockManager::close);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(acquired).hasValue(8 * 40);
		assertThat(primariesHoldingKeys("baton:lock:{stock:*}")).as("primaries with a lock still held").isEmpty();
		// The fencing keys outlive the locks: they show the names spread over the primaries
		assertThat(primariesHoldingKeys("baton:lock:*")).as("primaries that held locks").hasSizeGreaterThan(1);
	}

	@Test
	void watchdogRenewsALockOnTheCluster() {
		try (RedisLockManager manager = RedisLockManager.builder(connect()).leaseTime(Duration.ofMillis(600)).build()) {
			LockLease lease = manager.tryAcquire("report", Duration.ZERO).orElseThrow();
			await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
			assertThat(lease.isValid()).isTrue();
			assertThat(manager.tryAcquire("report", Duration.ZERO)).isEmpty();
			lease.release();
			assertThat(manager.tryAcquire("report", Duration.ZERO)).isPresent();
		}
	}

	@Test
	void queuesOnEveryPrimaryDeliverWakeUpsDeadLetterAndRedrive() {
		Handlers handlers = new Handlers();
		LettuceConnectionFactory connectionFactory = connect();
		RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		GenericApplicationContext consumer = new GenericApplicationContext();
		consumer.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		consumer.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(queues)
					.settings((queue) -> new dev.baton.queue.listener.ListenerSettings(1,
							dev.baton.queue.listener.ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(30), 32, 0,
							Duration.ofSeconds(60), Duration.ofSeconds(2)))
					.build());
		consumer.registerBean(Handlers.class, () -> handlers);
		consumer.refresh();
		try {
			RedisDelayQueues producer = RedisDelayQueues.builder(connect(), JsonMapper.builder().build()).build();
			List<String> names = List.of("orders", "invoices", "emails", "reports", "refunds", "alerts");
			for (String name : names) {
				DelayQueue<String> queue = producer.get(name, String.class);
				for (int i = 0; i < 20; i++) {
					queue.schedule(name + "-" + i, "ok", Duration.ZERO);
				}
			}
			producer.get("orders", String.class).schedule("broken", "fail", Duration.ZERO);

			// The idle poll is a minute away: only wake-ups through the cluster's pub/sub make this quick
			await().atMost(Duration.ofSeconds(15)).until(() -> handlers.handled.size() == names.size() * 20);
			DelayQueue<String> orders = producer.get("orders", String.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> orders.stats().dead() == 1);
			assertThat(orders.redrive("broken")).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> handlers.failures.get() == 2);
			assertThat(primariesHoldingKeys("baton:q:*")).as("primaries holding queue keys").hasSizeGreaterThan(1);
			producer.close();
		}
		finally {
			consumer.close();
			queues.close();
		}
	}

	/** The primaries on which keys of the pattern exist now. */
	private static Set<Integer> primariesHoldingKeys(String pattern) {
		Set<Integer> ports = new HashSet<>();
		RedisClient client = RedisClient.create();
		try {
			for (LocalRedisServer node : cluster.primaries()) {
				try (StatefulRedisConnection<String, String> connection = client
					.connect(RedisURI.create(node.host(), node.port()))) {
					if (!connection.sync().keys(pattern).isEmpty()) {
						ports.add(node.port());
					}
				}
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		return ports;
	}

	static class Handlers {

		final Set<String> handled = ConcurrentHashMap.newKeySet();

		final AtomicInteger failures = new AtomicInteger();

		final List<String> queues = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "orders")
		void orders(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "invoices")
		void invoices(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "emails")
		void emails(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "reports")
		void reports(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "refunds")
		void refunds(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		@DelayedTask(queue = "alerts")
		void alerts(String payload, dev.baton.queue.TaskContext task) {
			handle(payload, task);
		}

		private void handle(String payload, dev.baton.queue.TaskContext task) {
			if (payload.equals("fail")) {
				this.failures.incrementAndGet();
				throw new IllegalStateException("broken task");
			}
			this.handled.add(task.queue() + ":" + task.id());
		}

	}

}
