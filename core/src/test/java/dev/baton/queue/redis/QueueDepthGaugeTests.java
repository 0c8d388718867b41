package dev.baton.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DelayQueue;
import dev.baton.support.ProxiedRedis;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The depth gauges that the alerts of the observability guide rely on, after a GC and while Redis is away. */
class QueueDepthGaugeTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private ProxiedRedis redis;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.redis = ProxiedRedis.start();
		this.queues = RedisDelayQueues.builder(this.redis.throughProxy(), JsonMapper.builder().build())
			.meterRegistry(this.registry)
			.build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void depthGaugesStillReadAfterAFullGc() {
		DelayQueue<String> queue = this.queues.get("orders", String.class);
		queue.schedule("o-1", "x", Duration.ofHours(1));

		for (int i = 0; i < 3; i++) {
			System.gc();
		}

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(depth("orders", "scheduled")).isEqualTo(1.0));
	}

	@Test
	void readsTheDepthOnAThreadOfTheBuildersThreadFactory() {
		List<Thread> made = new CopyOnWriteArrayList<>();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		try (RedisDelayQueues queues = RedisDelayQueues.builder(this.redis.throughProxy(), JsonMapper.builder().build())
			.meterRegistry(meters)
			.threadFactory((task) -> {
				Thread thread = new Thread(task);
				made.add(thread);
				return thread;
			})
			.build()) {
			queues.get("orders", String.class).schedule("o-1", "x", Duration.ofHours(1));

			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(
						meters.get("baton.queue.depth").tag("queue", "orders").tag("state", "scheduled").gauge().value())
					.isEqualTo(1.0));
		}
		assertThat(made).extracting(Thread::getName).contains("baton-queue-stats");
		assertThat(made).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
	}

	@Test
	void scrapeWhileRedisDoesNotAnswerTakesNoLongerThanAShortBound() {
		List<String> names = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			names.add("q" + i);
			this.queues.get("q" + i, String.class).schedule("t", "x", Duration.ofHours(1));
		}
		names.forEach((name) -> assertThat(depth(name, "scheduled")).isEqualTo(1.0));
		await().pollDelay(Duration.ofMillis(1100)).until(() -> true);

		this.redis.proxy().blackHole();
		long start = System.nanoTime();
		List<Double> values = new ArrayList<>();
		for (Gauge gauge : this.registry.get("baton.queue.depth").gauges()) {
			values.add(gauge.value());
		}
		Duration scrape = Duration.ofNanos(System.nanoTime() - start);

		assertThat(values).hasSize(32);
		assertThat(scrape).isLessThan(Duration.ofSeconds(2));
		// The last depth read is served meanwhile.
		assertThat(depth("q0", "scheduled")).isEqualTo(1.0);
	}

	private double depth(String queue, String state) {
		return this.registry.get("baton.queue.depth").tag("queue", queue).tag("state", state).gauge().value();
	}

}
