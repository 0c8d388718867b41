package dev.baton.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.baton.internal.TimedScripts;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** A queue spread over several partitions behaves as one queue: every operation finds every task. */
@RedisTest
class PartitionedDelayQueueTests {

	@Test
	void tasksSpreadOverEveryPartitionAndEveryOperationFindsThemByTheirId(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			DelayQueue<String> orders = queues.get("orders", String.class);
			for (int i = 0; i < 200; i++) {
				assertThat(orders.schedule("o-" + i, "order " + i, Duration.ofMinutes(10 + i))).isTrue();
			}

			assertThat(redis.opsForZSet().zCard("baton:q:{orders}:due")).isPositive();
			for (int partition = 1; partition < 4; partition++) {
				assertThat(redis.opsForZSet().zCard(QueueKeys.of("baton:q:", "orders", partition).due())).isPositive();
			}
			assertThat(orders.schedule("o-7", "again", Duration.ZERO)).isFalse();
			assertThat(orders.find("o-7")).get().extracting(ScheduledTask::payload).isEqualTo("order 7");
			assertThat(orders.cancel("o-8")).isTrue();
			assertThat(orders.find("o-8")).isEmpty();
			assertThat(orders.reschedule("o-150", Duration.ofMinutes(1))).isTrue();
			assertThat(orders.stats().scheduled()).isEqualTo(199);
			assertThat(orders.peek(3)).extracting(ScheduledTask::id).containsExactly("o-150", "o-0", "o-1");
		}
	}

	@Test
	void smallClaimsGoRoundThePartitionsAndDrainEveryTaskOnce(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			RedisDelayQueue<String> orders = (RedisDelayQueue<String>) queues.get("orders", String.class);
			orders.scheduleAll(IntStream.range(0, 100).mapToObj((i) -> NewTask.of("o-" + i, "x", Duration.ZERO)).toList());

			List<String> claimed = new ArrayList<>();
			ConsumableQueue.Claim<String> claim;
			do {
				claim = orders.claim(3, Duration.ofMinutes(1));
				assertThat(claim.deliveries()).hasSizeLessThanOrEqualTo(3);
				claim.deliveries().forEach((delivery) -> claimed.add(delivery.id()));
				orders.acknowledge(claim.deliveries());
			}
			while (claim.nextDueIn() != null);

			assertThat(claimed).hasSize(100).doesNotHaveDuplicates();
			assertThat(orders.stats().inFlight()).isZero();
			assertThat(orders.stats().due()).isZero();
		}
	}

	@Test
	void aClaimOfOneFindsTheOnlyDueTaskWhicheverPartitionItsShareGoesTo(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			RedisDelayQueue<String> orders = (RedisDelayQueue<String>) queues.get("orders", String.class);
			for (int i = 0; i < 8; i++) {
				orders.schedule("only-" + i, "x", Duration.ZERO);

				ConsumableQueue.Claim<String> claim = orders.claim(1, Duration.ofMinutes(1));

				assertThat(claim.deliveries()).extracting(Delivery::id).containsExactly("only-" + i);
			}
		}
	}

	@Test
	void underABacklogEachClaimTakesFromOnePartitionAndEveryPartitionGetsItsTurn(
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			RedisDelayQueue<String> orders = (RedisDelayQueue<String>) queues.get("orders", String.class);
			orders.scheduleAll(IntStream.range(0, 400).mapToObj((i) -> NewTask.of("o-" + i, "x", Duration.ZERO)).toList());
			QueuePartitions partitions = new QueuePartitions("baton:q:", "orders", 4);

			List<Set<QueueKeys>> sources = new ArrayList<>();
			for (int i = 0; i < 9; i++) {
				ConsumableQueue.Claim<String> claim = orders.claim(10, Duration.ofMinutes(1));
				assertThat(claim.deliveries()).hasSize(10);
				assertThat(claim.nextDueIn()).isEqualTo(Duration.ZERO);
				sources.add(claim.deliveries().stream().map((delivery) -> partitions.forId(delivery.id())).collect(
						Collectors.toSet()));
			}

			// The first claim asks all four; each later one, with the backlog seen, one partition in turn.
			assertThat(sources.get(0)).hasSize(4);
			assertThat(sources.subList(1, 9)).allSatisfy((claimed) -> assertThat(claimed).hasSize(1));
			assertThat(sources.subList(1, 5).stream().flatMap(Set::stream).distinct()).hasSize(4);
		}
	}

	@Test
	void deadLettersOfAllPartitionsAreListedNewestFirstAndRedriven(RedisConnectionFactory connectionFactory)
			throws InterruptedException {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 3)) {
			DelayQueue<String> orders = queues.get("orders", String.class);
			for (int i = 0; i < 6; i++) {
				orders.schedule("o-" + i, "x", Duration.ZERO);
				orders.poll(1).get(0).deadLetter("failed " + i);
				Thread.sleep(2);
			}

			assertThat(orders.deadLetters(10)).extracting((dead) -> dead.id())
				.containsExactly("o-5", "o-4", "o-3", "o-2", "o-1", "o-0");
			assertThat(orders.deadLetters(2)).extracting((dead) -> dead.id()).containsExactly("o-5", "o-4");
			assertThat(orders.redrive("o-2")).isTrue();
			assertThat(orders.purgeDeadLetter("o-3")).isTrue();
			assertThat(orders.stats().dead()).isEqualTo(4);
			assertThat(orders.poll(10)).extracting(Delivery::id).containsExactly("o-2");
		}
	}

	@Test
	void scheduleAllPlacesEveryTaskAndReportsThemInTheGivenOrder(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 2)) {
			DelayQueue<String> orders = queues.get("orders", String.class);
			orders.schedule("o-10", "x", Duration.ofHours(1));
			List<NewTask<String>> tasks = IntStream.range(0, 2500)
				.mapToObj((i) -> NewTask.of("o-" + i, "x", Duration.ofHours(1)))
				.toList();

			List<String> scheduled = orders.scheduleAll(tasks);

			List<String> expected = new ArrayList<>(tasks.stream().map(NewTask::id).toList());
			expected.remove("o-10");
			assertThat(scheduled).isEqualTo(expected);
			assertThat(orders.stats().scheduled()).isEqualTo(2500);
		}
	}

	@Test
	void partitionCountCannotChangeWhileTheQueueHoldsTasks(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) {
		try (RedisDelayQueues unpartitioned = partitioned(connectionFactory, 1)) {
			unpartitioned.get("orders", String.class).schedule("o-1", "x", Duration.ofHours(1));
		}
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> queues.get("orders", String.class))
				.withMessageContaining("Queue 'orders' holds 1 task(s) placed in 1 partition(s)")
				.satisfies((ex) -> assertThat(ex.getConfiguredPartitions()).isEqualTo(4));
		}
		try (RedisDelayQueues unpartitioned = partitioned(connectionFactory, 1)) {
			assertThat(unpartitioned.get("orders", String.class).cancel("o-1")).isTrue();
		}

		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			queues.get("orders", String.class).schedule("o-2", "x", Duration.ofHours(1));
			assertThat(redis.opsForValue().get("baton:q:{orders}:partitions")).isEqualTo("4");
		}
		try (RedisDelayQueues fewer = partitioned(connectionFactory, 2)) {
			assertThatExceptionOfType(PartitionCountChangeException.class)
				.isThrownBy(() -> fewer.get("orders", String.class))
				.satisfies((ex) -> assertThat(ex.getStoredPartitions()).isEqualTo(4));
		}
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			assertThat(queues.get("orders", String.class).find("o-2")).isPresent();
		}
	}

	@Test
	void partitionsShareTheDeadLetterCount(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> 4)
			.deadLetterRetention((name) -> new DeadLetterRetention(8, Duration.ofDays(1)))
			.build()) {
			DelayQueue<String> orders = queues.get("orders", String.class);
			for (int i = 0; i < 40; i++) {
				orders.schedule("o-" + i, "x", Duration.ZERO);
			}
			List<Delivery<String>> deliveries = orders.poll(40);
			assertThat(deliveries).hasSize(40);
			deliveries.forEach((delivery) -> delivery.deadLetter("broken"));
			assertThat(orders.poll(1)).as("a claim applies the retention").isEmpty();

			// Two per partition: at most 8 in all, not 8 in each.
			assertThat(orders.stats().dead()).isBetween(1L, 8L);
		}
	}

	@Test
	void aWakeUpFromAPartitionOtherThanTheFirstReachesTheConsumer(RedisConnectionFactory connectionFactory)
			throws Exception {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 4)) {
			RedisDelayQueue<String> orders = (RedisDelayQueue<String>) queues.get("orders", String.class);
			QueueKeys lastPartition = QueueKeys.of("baton:q:", "orders", 3);
			String id = IntStream.range(0, 1000)
				.mapToObj((i) -> "o-" + i)
				.filter((candidate) -> new QueuePartitions("baton:q:", "orders", 4).forId(candidate).equals(lastPartition))
				.findFirst()
				.orElseThrow();
			AtomicInteger wakeUps = new AtomicInteger();
			try (AutoCloseable subscription = orders.onWake(wakeUps::incrementAndGet)) {
				// Each subscription's confirmation wakes the consumer once, too.
				await().atMost(Duration.ofSeconds(5)).until(() -> wakeUps.get() >= 1);
				Thread.sleep(200);
				int afterSubscribing = wakeUps.get();

				orders.schedule(id, "x", Duration.ofHours(1));

				await().atMost(Duration.ofSeconds(5)).until(() -> wakeUps.get() > afterSubscribing);
			}
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void peekAndDeadLettersReadTheirLimitInTotalWhateverThePartitions(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 8)) {
			RedisDelayQueue<Counted> queue = (RedisDelayQueue<Counted>) queues.get("counted", Counted.class);
			for (int i = 0; i < 80; i++) {
				queue.schedule("c-" + i, new Counted("c-" + i), Duration.ofMinutes(10 + i));
			}

			Counted.READS.set(0);
			assertThat(queue.peek(5)).extracting(ScheduledTask::id).containsExactly("c-0", "c-1", "c-2", "c-3", "c-4");
			assertThat(Counted.READS).as("payloads read").hasValue(5);

			queue.advance(null);
			List<Delivery<Counted>> deliveries;
			while (!(deliveries = queue.poll(100)).isEmpty()) {
				deliveries.forEach((delivery) -> delivery.deadLetter("failed"));
			}
			Counted.READS.set(0);
			assertThat(queue.deadLetters(5)).hasSize(5);
			assertThat(Counted.READS).as("payloads read").hasValue(5);
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void peekFindsTheEarliestTasksWhenOnePartitionHoldsThemAll(RedisConnectionFactory connectionFactory) {
		try (RedisDelayQueues queues = partitioned(connectionFactory, 8)) {
			RedisDelayQueue<Counted> queue = (RedisDelayQueue<Counted>) queues.get("counted", Counted.class);
			QueuePartitions partitions = new QueuePartitions("baton:q:", "counted", 8);
			QueueKeys first = partitions.forId("c-0");
			List<String> crowded = IntStream.range(0, 1000)
				.mapToObj((i) -> "c-" + i)
				.filter((id) -> partitions.forId(id).equals(first))
				.limit(10)
				.toList();
			for (int i = 0; i < crowded.size(); i++) {
				queue.schedule(crowded.get(i), new Counted(crowded.get(i)), Duration.ofMinutes(1 + i));
			}
			for (int i = 0; i < 40; i++) {
				queue.schedule("late-" + i, new Counted("late-" + i), Duration.ofHours(1 + i));
			}

			Counted.READS.set(0);
			assertThat(queue.peek(6)).extracting(ScheduledTask::id).containsExactlyElementsOf(crowded.subList(0, 6));
			assertThat(Counted.READS).as("payloads read").hasValue(6);
		}
	}

	/** A payload that counts how often it is made, by the tests or by reading its JSON. */
	record Counted(String name) {

		static final AtomicInteger READS = new AtomicInteger();

		Counted {
			READS.incrementAndGet();
		}

	}

	private static RedisDelayQueues partitioned(RedisConnectionFactory connectionFactory, int partitions) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> partitions)
			.build();
	}

}
