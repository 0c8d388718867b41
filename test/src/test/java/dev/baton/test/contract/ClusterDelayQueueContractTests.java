package dev.baton.test.contract;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.queue.DelayQueue;
import dev.baton.test.LocalRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The queue contract on a Redis Cluster of 3 primaries. */
class ClusterDelayQueueContractTests extends RedisDelayQueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

	@Test
	void partitionsOfAQueueSpreadOverEveryPrimaryAndDrainFromAll() {
		startConsumer();
		DelayQueue<String> orders = producer().get("orders", String.class);
		for (int i = 0; i < 120; i++) {
			orders.schedule("later-" + i, "ok", Duration.ofHours(1));
		}

		Map<String, Long> waitingByPrimary = new LinkedHashMap<>();
		for (LocalRedisServer primary : backend().primaries()) {
			RedisClient client = RedisClient.create(RedisURI.create(primary.host(), primary.port()));
			try (StatefulRedisConnection<String, String> node = client.connect()) {
				long waiting = 0;
				// ":due", not "due": a call's remembered reply is a key whose random id may end in "due"
				for (String due : node.sync().keys(prefix() + "{orders*:due")) {
					waiting += node.sync().zcard(due);
				}
				waitingByPrimary.put(primary.host() + ":" + primary.port(), waiting);
			}
			finally {
				client.shutdown();
			}
		}
		System.out.println("Waiting tasks of a queue with 12 partitions, by primary: " + waitingByPrimary);
		assertThat(waitingByPrimary.values()).allMatch((waiting) -> waiting > 0);
		assertThat(waitingByPrimary.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(120);

		for (int i = 0; i < 120; i++) {
			assertThat(orders.reschedule("later-" + i, Duration.ZERO)).isTrue();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> orders.stats().inFlight() + orders.stats().due() == 0
				&& orders.stats().scheduled() == 0);
	}

}
