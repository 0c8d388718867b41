package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.PayloadEnvelope;
import dev.baton.queue.ScheduledTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** An envelope that authenticates payloads: one forged or moved in Redis is never handled. */
@RedisTest
class PayloadEnvelopeTests {

	@Test
	void sealedPayloadIsStoredSealedAndReadBack(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = queues(connectionFactory)) {
			DelayQueue<Order> orders = queues.get("orders", Order.class);
			orders.schedule("o-1", new Order("o-1", 5), Duration.ofMinutes(1));

			assertThat(StoredPayloads.read(connectionFactory, "orders", "o-1")).startsWith("mac=");
			assertThat(orders.find("o-1").orElseThrow().payload()).isEqualTo(new Order("o-1", 5));
		}
	}

	@Test
	void forgedPayloadIsNotHandled(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = queues(connectionFactory)) {
			RedisDelayQueue<Order> orders = (RedisDelayQueue<Order>) queues.get("orders", Order.class);
			orders.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
			StoredPayloads.write(connectionFactory, "orders", "o-1", "{\"number\":\"o-1\",\"amount\":5000}");

			ScheduledTask<Order> found = orders.find("o-1").orElseThrow();
			assertThat(found.payload()).isNull();
			assertThat(found.unreadablePayload()).contains("5000");
			assertThat(orders.poll(10)).isEmpty();
			assertThat(orders.deadLetters(10)).singleElement()
				.satisfies((dead) -> assertThat(dead.payload()).isNull());
		}
	}

	@Test
	void payloadCopiedFromAnotherTaskDoesNotOpen(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = queues(connectionFactory)) {
			DelayQueue<Order> orders = queues.get("orders", Order.class);
			orders.schedule("small", new Order("o-1", 5), Duration.ofMinutes(1));
			orders.schedule("large", new Order("o-2", 5000), Duration.ofMinutes(1));
			StoredPayloads.write(connectionFactory, "orders", "small", StoredPayloads.read(connectionFactory, "orders", "large"));

			assertThat(orders.find("small").orElseThrow().payload()).isNull();
		}
	}

	private static RedisDelayQueues queues(RedisConnectionFactory connectionFactory) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.payloadEnvelope(new HmacEnvelope("test-key".getBytes(StandardCharsets.UTF_8)))
			.build();
	}

	/** Prefixes the JSON with an HMAC of queue, id and JSON. */
	static final class HmacEnvelope implements PayloadEnvelope {

		private final SecretKeySpec key;

		HmacEnvelope(byte[] key) {
			this.key = new SecretKeySpec(key, "HmacSHA256");
		}

		@Override
		public String seal(String queue, String id, String json) {
			return "mac=" + mac(queue, id, json) + ";" + json;
		}

		@Override
		public String open(String queue, String id, String stored) {
			int end = stored.indexOf(';');
			if (!stored.startsWith("mac=") || end < 0) {
				throw new IllegalArgumentException("Payload is not sealed");
			}
			String json = stored.substring(end + 1);
			byte[] expected = mac(queue, id, json).getBytes(StandardCharsets.US_ASCII);
			if (!MessageDigest.isEqual(expected, stored.substring(4, end).getBytes(StandardCharsets.US_ASCII))) {
				throw new IllegalArgumentException("Payload is not authentic");
			}
			return json;
		}

		private String mac(String queue, String id, String json) {
			try {
				Mac mac = Mac.getInstance("HmacSHA256");
				mac.init(this.key);
				// lengths first, so that no two (queue, id, json) give the same input
				String input = queue.length() + ":" + queue + id.length() + ":" + id + json;
				return Base64.getEncoder().encodeToString(mac.doFinal(input.getBytes(StandardCharsets.UTF_8)));
			}
			catch (GeneralSecurityException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
