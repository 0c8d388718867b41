package dev.baton.queue.redis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.ScheduledTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis is not trusted to name classes: a payload naming one is not instantiated, even when the
 * application's mapper has default typing (as some teams enable for caches).
 */
@RedisTest
class PayloadTypeIdTests {

	/** Default typing for every class, as a team that wants its caches to round-trip anything sets it. */
	private static final JsonMapper DEFAULT_TYPING = JsonMapper.builder()
		.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfSubType(Object.class).build(),
				DefaultTyping.NON_FINAL, JsonTypeInfo.As.PROPERTY)
		.build();

	@Test
	void classNamedInRedisIsNotInstantiatedWhenTheMapperHasDefaultTyping(RedisConnectionFactory connectionFactory) {
		String stored = "{\"text\":\"hi\",\"detail\":{\"@class\":\"" + Gadget.class.getName()
				+ "\",\"command\":\"calc\"}}";
		try (RedisDelayQueues writer = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
				RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, DEFAULT_TYPING).build()) {
			JsonNode tampered = JsonMapper.builder().build().readTree(stored);
			writer.get("notes", JsonNode.class).schedule("n-1", tampered, Duration.ofMinutes(1));
			int before = Gadget.instances.get();

			ScheduledTask<Note> task = queues.get("notes", Note.class).find("n-1").orElseThrow();

			assertThat(Gadget.instances).hasValue(before);
			assertThat(task.payload().detail()).isEqualTo(Map.of("@class", Gadget.class.getName(), "command", "calc"));
		}
	}

	@Test
	void payloadsStillRoundTripWithAMapperThatHasDefaultTyping(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, DEFAULT_TYPING).build()) {
			DelayQueue<Note> notes = queues.get("notes", Note.class);
			notes.schedule("n-1", new Note("hi", Map.of("amount", 5)), Duration.ofMinutes(1));

			assertThat(notes.find("n-1").orElseThrow().payload()).isEqualTo(new Note("hi", Map.of("amount", 5)));
		}
	}

	@Test
	void payloadTypeWithClassTypeIdsIsWarnedOf(RedisConnectionFactory connectionFactory) {
		Logger logger = (Logger) LoggerFactory.getLogger(RedisDelayQueues.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build()) {
			queues.get("payments", Payment.class);
			queues.get("notes", Note.class);
		}
		finally {
			logger.detachAppender(appender);
		}

		assertThat(appender.list).singleElement().satisfies((event) -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains("'payments'", Payment.class.getName(), "Id.CLASS",
					"Id.NAME");
		});
	}

	record Note(String text, Object detail) {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
	interface Payment {
	}

	/** Stands for the first link of a gadget chain: constructing it is what an attacker wants. */
	public static class Gadget {

		static final AtomicInteger instances = new AtomicInteger();

		public Gadget() {
			instances.incrementAndGet();
		}

		public void setCommand(String command) {
		}

	}

}
