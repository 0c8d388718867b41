package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import dev.baton.queue.Delivery;
import dev.baton.queue.internal.ConsumableQueue;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.RedisSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** A visibility extension that Redis does not answer is given up well before the visibility runs out. */
class BoundedExtensionTests {

	private ProxiedRedis redis;

	private RedisDelayQueues queues;

	@BeforeEach
	void start() {
		this.redis = ProxiedRedis.start();
		this.queues = RedisDelayQueues.builder(this.redis.throughProxy(), JsonMapper.builder().build()).build();
	}

	@AfterEach
	void stop() {
		this.queues.close();
		this.redis.close();
	}

	@Test
	void extensionThatRedisDoesNotAnswerFailsWithinAThirdOfTheVisibilityTimeout() {
		@SuppressWarnings("unchecked")
		ConsumableQueue<String> queue = (ConsumableQueue<String>) this.queues.get("orders", String.class);
		queue.schedule("o-1", "x", Duration.ZERO);
		List<Delivery<String>> deliveries = queue.claim(1, Duration.ofSeconds(3)).deliveries();

		this.redis.proxy().blackHole();
		long start = System.nanoTime();
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> queue.extendVisibility(deliveries, Duration.ofSeconds(3)))
			.withMessageContaining("extend the visibility of 1 task(s) of queue 'orders'");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));

		this.redis.proxy().heal();
		queue.extendVisibility(deliveries, Duration.ofSeconds(3));
		assertThat(deliveries.get(0).ack()).isTrue();
	}

}
