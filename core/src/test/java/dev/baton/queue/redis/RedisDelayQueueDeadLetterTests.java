package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisDelayQueueDeadLetterTests extends OrderQueueTests {

	@Test
	void deadLetterKeepsPayloadAttemptsAndReason() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		this.queue.poll(1).get(0).retry(Duration.ZERO);
		Delivery<Order> second = this.queue.poll(1).get(0);

		assertThat(second.deadLetter("card declined | twice")).isTrue();

		assertThat(this.queue.deadLetters(10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("o-1");
			assertThat(dead.payload()).isEqualTo(new Order("o-1", 5));
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.reason()).isEqualTo("card declined | twice");
			assertThat(dead.failedAt()).isAfterOrEqualTo(second.dueAt());
		});
		assertThat(this.queue.find("o-1")).isEmpty();
		assertThat(this.queue.poll(1)).isEmpty();
		assertThat(second.ack()).isFalse();
	}

	@Test
	void deadLetterWithoutReasonIsRefusedAndTaskStaysInFlight() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);
		String noReason = null;

		assertThatIllegalArgumentException().isThrownBy(() -> delivery.deadLetter(noReason))
			.withMessage("Dead letter reason must not be null");

		assertThat(this.queue.deadLetters(10)).isEmpty();
		assertThat(delivery.ack()).isTrue();
	}

	@Test
	void longReasonIsCutSayingSo() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);

		assertThat(delivery.deadLetter("x".repeat(100_000))).isTrue();

		assertThat(this.queue.deadLetters(1)).singleElement().satisfies((dead) -> {
			assertThat(dead.reason()).hasSizeLessThan(4200).endsWith("... (cut, 100000 characters)");
		});
	}

	@Test
	void deadLettersAreListedMostRecentFirst() throws InterruptedException {
		for (String id : List.of("a", "b", "c")) {
			this.queue.schedule(id, new Order(id, 1), Duration.ZERO);
			this.queue.poll(1).get(0).deadLetter("failed " + id);
			Thread.sleep(5); // distinct failure times
		}

		assertThat(this.queue.deadLetters(2)).extracting(DeadLetter::id).containsExactly("c", "b");
	}

	@Test
	void redriveMakesDeadLetterDueNowWithAttemptsReset() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		this.queue.poll(1).get(0).deadLetter("broken");

		assertThat(this.queue.redrive("o-1")).isTrue();

		assertThat(this.queue.deadLetters(10)).isEmpty();
		assertThat(this.queue.redrive("o-1")).isFalse();
		Delivery<Order> delivery = this.queue.poll(1).get(0);
		assertThat(delivery.id()).isEqualTo("o-1");
		assertThat(delivery.payload()).isEqualTo(new Order("o-1", 5));
		assertThat(delivery.attempt()).isEqualTo(1);
	}

	@Test
	void redriveRefusesWhileTaskWithSameIdIsLive() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		this.queue.poll(1).get(0).deadLetter("broken");
		this.queue.schedule("o-1", new Order("o-1", 6), Duration.ofHours(1));

		assertThat(this.queue.redrive("o-1")).isFalse();

		assertThat(this.queue.deadLetters(10)).extracting(DeadLetter::id).containsExactly("o-1");
		assertThat(this.queue.find("o-1").orElseThrow().payload()).isEqualTo(new Order("o-1", 6));
	}

	@Test
	void purgeDeletesDeadLetter() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		this.queue.poll(1).get(0).deadLetter("broken");

		assertThat(this.queue.purgeDeadLetter("o-1")).isTrue();

		assertThat(this.queue.purgeDeadLetter("o-1")).isFalse();
		assertThat(this.queue.deadLetters(10)).isEmpty();
		assertThat(this.queue.redrive("o-1")).isFalse();
		assertThat(this.queue.stats().dead()).isZero();
	}

	@Test
	void anUnreadablePayloadIsLoggedCountedAndItsStoredFormShown(RedisConnectionFactory connectionFactory) {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		Logger logger = (Logger) LoggerFactory.getLogger(RedisDelayQueue.class);
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		logger.addAppender(log);
		try (RedisDelayQueues metered = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.meterRegistry(meters)
			.build()) {
			@SuppressWarnings("unchecked")
			RedisDelayQueue<Order> orders = (RedisDelayQueue<Order>) metered.get("orders", Order.class);
			metered.get("orders", String.class).schedule("poison", "not an order", Duration.ZERO);

			assertThat(orders.poll(10)).isEmpty();

			assertThat(orders.deadLetters(10)).singleElement()
				.satisfies((dead) -> assertThat(dead.unreadablePayload()).isEqualTo("\"not an order\""));
			assertThat(meters.get("baton.queue.unreadable").tag("queue", "orders").counter().count()).isOne();
			assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
				.anySatisfy((message) -> assertThat(message).contains("queue 'orders'")
					.contains("'poison'")
					.contains(Order.class.getName()));
		}
		finally {
			logger.detachAppender(log);
		}
	}

	@Test
	void poisonPayloadsReasonNamesTheExceptionNotTheValue() {
		this.queues.get("orders", String.class).schedule("poison", "IBAN DE44500105175407324931", Duration.ZERO);

		assertThat(this.queue.poll(10)).isEmpty();

		assertThat(this.queue.deadLetters(1)).singleElement()
			.satisfies((dead) -> assertThat(dead.reason()).doesNotContain("DE44")
				.matches("Payload cannot be read as dev\\.baton\\.queue\\.redis\\.Order: tools\\.jackson\\.\\S+Exception"));
	}

	@Test
	@SuppressWarnings("unchecked")
	void poisonPayloadIsDeadLetteredWithTheExceptionClassWhenTheReasonHookFails(RedisConnectionFactory connectionFactory) {
		this.queues.get("orders", String.class).schedule("poison", "not an order", Duration.ZERO);
		try (RedisDelayQueues hooked = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.deadLetterReason((failure) -> {
				throw new UnsupportedOperationException("hook broken");
			})
			.build()) {
			RedisDelayQueue<Order> orders = (RedisDelayQueue<Order>) hooked.get("orders", Order.class);

			assertThat(orders.poll(10)).isEmpty();

			assertThat(orders.deadLetters(1)).singleElement()
				.satisfies((dead) -> assertThat(dead.reason()).startsWith("Payload cannot be read as "
						+ Order.class.getName() + ": tools.jackson."));
		}
	}

	@Test
	void poisonPayloadGoesToDeadLettersAtOnceAndIsNotLost() {
		DelayQueue<String> writer = this.queues.get("orders", String.class);
		writer.schedule("poison", "not an order", Duration.ZERO);
		this.queue.schedule("fine", new Order("fine", 1), Duration.ZERO);

		List<Delivery<Order>> deliveries = this.queue.poll(10);

		assertThat(deliveries).extracting(Delivery::id).containsExactly("fine");
		assertThat(this.queue.deadLetters(10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("poison");
			assertThat(dead.payload()).isNull();
			assertThat(dead.attempts()).isEqualTo(1);
			assertThat(dead.reason()).startsWith("Payload cannot be read");
		});
		assertThat(this.queue.stats().inFlight()).isEqualTo(1);
		assertThat(writer.deadLetters(10)).extracting(DeadLetter::payload).containsExactly("not an order");
		assertThat(writer.redrive("poison")).isTrue();
		assertThat(writer.poll(10)).extracting(Delivery::payload).containsExactly("not an order");
	}

}
