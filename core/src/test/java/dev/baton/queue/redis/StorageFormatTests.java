package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.Delivery;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.queue.ScheduledTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Storage formats 0 and 1 side by side in one queue, as in a rolling upgrade: an instance that
 * writes format 0 (what builds before format 1 read) and one that writes format 1 each read,
 * settle, move and delete the other's tasks and dead letters; a value of a newer format is
 * refused, never read wrong or deleted.
 */
@RedisTest
class StorageFormatTests {

	private static final String KEYS = "baton:q:{orders}:";

	private RedisDelayQueues formatZero;

	private RedisDelayQueues formatOne;

	private RedisDelayQueue<Order> old;

	private RedisDelayQueue<Order> upgraded;

	@BeforeEach
	@SuppressWarnings("unchecked")
	void createQueues(RedisConnectionFactory connectionFactory) {
		this.formatZero = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.storageFormat(0)
			.build();
		this.formatOne = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		this.old = (RedisDelayQueue<Order>) this.formatZero.get("orders", Order.class);
		this.upgraded = (RedisDelayQueue<Order>) this.formatOne.get("orders", Order.class);
	}

	@AfterEach
	void closeQueues() {
		this.formatZero.close();
		this.formatOne.close();
	}

	@Test
	void eachFormatIsStoredAsDocumented(StringRedisTemplate redis, RedisConnectionFactory connectionFactory) {
		this.old.schedule("zero", new Order("zero", 1), Duration.ofHours(1));
		this.upgraded.schedule("one", new Order("one", 1), Duration.ofHours(1));

		assertThat(redis.<String, String>opsForHash().keys(KEYS + "meta")).containsExactly("zero");
		assertThat(redis.<String, String>opsForHash().get(KEYS + "tasks", "zero")).startsWith("{");
		assertThat(StoredPayloads.value(connectionFactory, "orders", "one")[0]).isEqualTo((byte) 1);
		assertThat(StoredPayloads.read(connectionFactory, "orders", "one")).isEqualTo("{\"number\":\"one\",\"amount\":1}");
	}

	@Test
	void tasksOfBothFormatsAreClaimedRetriedAndSettledByEither() {
		this.old.schedule("zero", new Order("zero", 1), Duration.ZERO);
		this.upgraded.schedule("one", new Order("one", 1), Duration.ZERO);

		List<Delivery<Order>> first = this.old.poll(10);
		assertThat(first).extracting(Delivery::payload).containsExactly(new Order("zero", 1), new Order("one", 1));
		first.forEach((delivery) -> assertThat(delivery.retry(Duration.ZERO)).isTrue());

		List<Delivery<Order>> second = this.upgraded.poll(10);
		assertThat(second).extracting(Delivery::attempt).containsExactly(2, 2);
		assertThat(second.get(0).ack()).isTrue();
		assertThat(second.get(1).retry(Duration.ZERO)).isTrue();

		Delivery<Order> third = this.old.poll(10).get(0);
		assertThat(third.payload()).isEqualTo(new Order("one", 1));
		assertThat(third.attempt()).isEqualTo(3);
		assertThat(third.ack()).isTrue();
		assertThat(this.upgraded.stats()).satisfies((stats) -> assertThat(stats.scheduled() + stats.due() + stats.inFlight()).isZero());
	}

	@Test
	void deadLettersOfBothFormatsAreReadRedrivenAndPurgedByEither(StringRedisTemplate redis) {
		this.old.schedule("zero", new Order("zero", 1), Duration.ZERO);
		this.upgraded.schedule("one", new Order("one", 1), Duration.ZERO);
		this.upgraded.poll(10).forEach((delivery) -> delivery.deadLetter("failed | " + delivery.id()));

		assertThat(this.old.deadLetters(10)).extracting(DeadLetter::id, DeadLetter::payload, DeadLetter::attempts,
				DeadLetter::reason)
			.containsExactlyInAnyOrder(tuple("zero", new Order("zero", 1), 1, "failed | zero"),
					tuple("one", new Order("one", 1), 1, "failed | one"));
		assertThat(redis.<String, String>opsForHash().keys(KEYS + "dead-info")).containsExactly("zero");

		assertThat(this.upgraded.redrive("zero")).isTrue();
		assertThat(this.old.redrive("one")).isTrue();
		// A redriven task keeps its dead letter's format.
		assertThat(redis.<String, String>opsForHash().keys(KEYS + "meta")).containsExactly("zero");
		List<Delivery<Order>> redriven = this.old.poll(10);
		assertThat(redriven).extracting(Delivery::id).containsExactlyInAnyOrder("zero", "one");
		redriven.forEach((delivery) -> delivery.deadLetter("again"));
		assertThat(this.upgraded.purgeDeadLetter("zero")).isTrue();
		assertThat(this.old.purgeDeadLetter("one")).isTrue();
		assertThat(redis.keys(KEYS + "*")).doesNotContain(KEYS + "dead", KEYS + "dead-payloads", KEYS + "dead-info",
				KEYS + "tasks", KEYS + "meta");
	}

	@Test
	void waitingTasksOfBothFormatsAreFoundListedMovedAndCancelledByEither(StringRedisTemplate redis) {
		this.old.schedule("zero", new Order("zero", 1), Duration.ofHours(1));
		this.upgraded.schedule("one", new Order("one", 1), Duration.ofHours(2));

		assertThat(this.old.find("one")).map(ScheduledTask::payload).contains(new Order("one", 1));
		assertThat(this.upgraded.find("zero")).map(ScheduledTask::payload).contains(new Order("zero", 1));
		assertThat(this.old.peek(10)).extracting(ScheduledTask::id).containsExactly("zero", "one");
		assertThat(this.upgraded.dueBetween(Instant.now(), Instant.now().plus(Duration.ofHours(3)), 10, null).tasks())
			.extracting(ScheduledTask::id)
			.containsExactly("zero", "one");

		assertThat(this.upgraded.reschedule("zero", Duration.ofHours(3))).isTrue();
		assertThat(this.old.reschedule("one", Duration.ofMinutes(30))).isTrue();
		assertThat(this.old.peek(10)).extracting(ScheduledTask::id).containsExactly("one", "zero");
		assertThat(this.old.advance(null)).isEqualTo(2);
		assertThat(this.upgraded.cancel("zero")).isTrue();
		assertThat(this.old.cancel("one")).isTrue();
		assertThat(redis.keys(KEYS + "*")).doesNotContain(KEYS + "due", KEYS + "tasks", KEYS + "meta");
	}

	@Test
	void aValueOfANewerFormatIsRefusedAndKept(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.upgraded.schedule("newer", new Order("newer", 1), Duration.ZERO);
		byte[] value = StoredPayloads.value(connectionFactory, "orders", "newer");
		value[0] = 2;
		StoredPayloads.writeValue(connectionFactory, "orders", "newer", value);

		assertThatExceptionOfType(QueueUnavailableException.class).isThrownBy(() -> this.upgraded.poll(10))
			.withStackTraceContaining("BATON-FORMAT 2 newer");
		assertThatExceptionOfType(QueueUnavailableException.class).isThrownBy(() -> this.old.find("newer"))
			.withStackTraceContaining("BATON-FORMAT 2 newer");
		assertThatExceptionOfType(QueueUnavailableException.class).isThrownBy(() -> this.old.cancel("newer"))
			.withStackTraceContaining("BATON-FORMAT 2 newer");

		assertThat(StoredPayloads.value(connectionFactory, "orders", "newer")).isEqualTo(value);
		assertThat(redis.opsForZSet().size(KEYS + "due")).isEqualTo(1);
	}

	@Test
	void aFormatThisBuildDoesNotWriteIsRefused(RedisConnectionFactory connectionFactory) {
		RedisDelayQueues.Builder builder = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build());

		assertThatIllegalArgumentException().isThrownBy(() -> builder.storageFormat(2))
			.withMessage("Queue storage format must be from 0 to 1, was 2");
	}

}
