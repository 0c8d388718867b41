package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.DirectRedis;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code SENTINEL FAILOVER} while tasks fall due at 1,000 a second: the old primary would take
 * claims and acknowledgements until the application follows the switch (about a second), and the
 * new primary, which never received them, would run those tasks again. Baton holds its writes from
 * the moment the sentinels send the replica {@code REPLICAOF NO ONE} until the switch, so that
 * nothing it writes lands on the old primary after the promotion; and it moves its wake-up
 * subscription to the new primary, whose wake-ups the old one does not hear until it is demoted.
 */
class SentinelFailoverDuplicatesTests {

	private static final int TASKS = 4_000;

	/**
	 * Once without and once with a connection pool (Spring Boot pools whenever commons-pool2 is on
	 * the class path): a pooling factory took back the connection to the old primary on a reset and
	 * gave it out again, so that writes went on landing there.
	 */
	@ParameterizedTest(name = "pooled: {0}")
	@ValueSource(booleans = { false, true })
	void aManualFailoverRunsAlmostNoTaskTwice(boolean pooled) {
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration(sentinel.masterName(),
					Set.copyOf(sentinel.sentinelNodes()));
			LettuceConnectionFactory connectionFactory = pooled
					? new LettuceConnectionFactory(configuration, LettucePoolingClientConfiguration.defaultConfiguration())
					: new LettuceConnectionFactory(configuration);
			LocalRedisServer oldPrimary = sentinel.dataNodes().stream()
				.filter((node) -> node.port() == sentinel.primaryPort())
				.findFirst()
				.orElseThrow();
			LocalRedisServer newPrimary = sentinel.dataNodes().stream()
				.filter((node) -> node != oldPrimary)
				.findFirst()
				.orElseThrow();
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			PrimarySwitchWatch watch = PrimarySwitchWatch.of(connectionFactory).orElseThrow();
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
			queues.followPrimarySwitches(watch);
			watch.start();
			Runs runs = new Runs();
			try (GenericApplicationContext consumer = consumer(queues, runs)) {
				DelayQueue<String> orders = queues.get("orders", String.class);
				// Due from a second from now, one every millisecond.
				List<NewTask<String>> tasks = new ArrayList<>();
				for (int i = 0; i < TASKS; i++) {
					tasks.add(NewTask.of("o-" + i, "payload", Duration.ofMillis(1_000 + i)));
				}
				orders.scheduleAll(tasks);
				// Half way through the due times.
				await().atMost(Duration.ofSeconds(20)).until(() -> runs.distinct() >= TASKS / 2);
				long failover = System.nanoTime();
				CompletableFuture.runAsync(sentinel::failover);

				await().atMost(Duration.ofSeconds(60)).until(() -> runs.distinct() == TASKS);
				// Well before the old primary is demoted (about 10 s), so only a subscription
				// that moved hears the wake-up; the idle poll is a minute.
				assertThat(Duration.ofNanos(System.nanoTime() - failover)).isLessThan(Duration.ofSeconds(7));
				long scheduled = System.nanoTime();
				orders.schedule("after-the-switch", "payload", Duration.ZERO);
				await().atMost(Duration.ofSeconds(60)).until(() -> runs.distinct() == TASKS + 1);
				assertThat(Duration.ofNanos(System.nanoTime() - scheduled)).isLessThan(Duration.ofMillis(1500));
				// The old primary, not demoted yet, took next to nothing after the promotion.
				long promotedAt = Long.parseLong(DirectRedis.replicationField(newPrimary, "second_repl_offset")) - 1;
				long oldOffset = Long.parseLong(DirectRedis.replicationField(oldPrimary, "master_repl_offset"));
				assertThat(oldOffset - promotedAt).as("bytes the old primary took after the promotion")
					.isLessThan(16 * 1024);
				// Tasks that the new primary still had as due or in flight come back once their
				// visibility timeout (3 s) ends.
				sleep(Duration.ofSeconds(8));
				assertThat(runs.distinct()).isEqualTo(TASKS + 1);
				// What was in flight in about a tenth of a second; without the hold about 1,000 to 1,800.
				assertThat(runs.duplicates()).isLessThanOrEqualTo(100);
			}
			finally {
				queues.close();
				watch.close();
				connectionFactory.destroy();
			}
		}
	}

	private static GenericApplicationContext consumer(RedisDelayQueues queues, Runs runs) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		// A visibility timeout of 3 s, so that acknowledgements the old primary took would show
		// within the test; an idle poll of a minute, so that only wake-ups make an idle consumer claim.
		ListenerSettings settings = new ListenerSettings(ListenerSettings.DEFAULTS.maxAttempts(),
				ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(3), ListenerSettings.DEFAULTS.batchSize(),
				ListenerSettings.DEFAULTS.prefetch(), Duration.ofSeconds(60), Duration.ofSeconds(2));
		context.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(queues).settings((queue) -> settings).build());
		context.registerBean(Runs.class, () -> runs);
		context.refresh();
		return context;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Counts each task's runs. */
	static class Runs {

		private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		@DelayedTask(queue = "orders")
		void handle(String payload, TaskContext task) {
			this.runs.computeIfAbsent(task.id(), (id) -> new AtomicInteger()).incrementAndGet();
		}

		int distinct() {
			return this.runs.size();
		}

		int duplicates() {
			return this.runs.values().stream().mapToInt((count) -> count.get() - 1).sum();
		}

	}

}
