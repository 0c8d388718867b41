package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dead letters are deleted only by a retention the application set, and every deletion is
 * counted; age retention runs on a quiet queue too.
 */
@RedisTest
class DeadLetterRetentionTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	@SuppressWarnings("unchecked")
	void byDefaultNoDeadLetterIsEverDeleted(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build()) {
			RedisDelayQueue<String> queue = (RedisDelayQueue<String>) queues.get("payments", String.class);
			// More than the 10,000 that the count trim used to keep by default
			queue.scheduleAll(IntStream.range(0, 10_001).mapToObj((i) -> NewTask.of("p-" + i, "x", Duration.ZERO)).toList());

			deadLetterEverything(queue);

			assertThat(queue.stats().dead()).isEqualTo(10_001);
		}
	}

	@Test
	void deadLettersBeyondTheRetainedCountAreDeletedWhollyAndCounted(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues queues = retaining(connectionFactory, new DeadLetterRetention(3, Duration.ofDays(1)))) {
			RedisDelayQueue<String> queue = orders(queues);
			for (int i = 0; i < 5; i++) {
				queue.schedule("o-" + i, "x", Duration.ZERO);
				queue.poll(1).get(0).deadLetter("failed " + i);
			}

			assertThat(queue.poll(1)).isEmpty();

			assertThat(queue.deadLetters(10)).extracting(DeadLetter::id).containsExactly("o-4", "o-3", "o-2");
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-payloads")).containsExactlyInAnyOrder("o-2",
					"o-3", "o-4");
			// Only format 0 writes dead-info entries; none of the deleted ones is left either way.
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-info")).doesNotContain("o-0", "o-1");
			assertThat(deleted().count()).isEqualTo(2);
		}
	}

	@Test
	void deadLettersOlderThanTheRetainedAgeAreDeletedByTheNextClaimOfAQuietQueue(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) throws InterruptedException {
		try (RedisDelayQueues queues = retaining(connectionFactory, new DeadLetterRetention(100, Duration.ofMillis(200)))) {
			RedisDelayQueue<String> queue = orders(queues);
			queue.schedule("old", "x", Duration.ZERO);
			queue.poll(1).get(0).deadLetter("failed");
			queue.schedule("young", "x", Duration.ofMillis(150));
			Thread.sleep(300);
			queue.poll(1).get(0).deadLetter("failed");

			// Nothing is dead-lettered any more: an idle consumer's claims apply the retention.
			assertThat(queue.poll(1)).isEmpty();

			assertThat(queue.deadLetters(10)).extracting(DeadLetter::id).containsExactly("young");
			assertThat(redis.opsForHash().keys("baton:q:{orders}:dead-payloads")).containsExactly("young");
			assertThat(deleted().count()).isEqualTo(1);
		}
	}

	private static void deadLetterEverything(RedisDelayQueue<String> queue) {
		List<Delivery<String>> deliveries;
		while (!(deliveries = queue.poll(1000)).isEmpty()) {
			deliveries.forEach((delivery) -> delivery.deadLetter("provider down"));
		}
	}

	private RedisDelayQueues retaining(RedisConnectionFactory connectionFactory, DeadLetterRetention retention) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.meterRegistry(this.registry)
			.deadLetterRetention((name) -> retention)
			.build();
	}

	@SuppressWarnings("unchecked")
	private static RedisDelayQueue<String> orders(RedisDelayQueues queues) {
		return (RedisDelayQueue<String>) queues.get("orders", String.class);
	}

	private Counter deleted() {
		return this.registry.get("baton.queue.dead-letters.deleted").tag("queue", "orders").counter();
	}

}
