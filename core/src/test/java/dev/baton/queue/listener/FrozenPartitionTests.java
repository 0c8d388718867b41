package dev.baton.queue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.TaskContext;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.PartialSettlementException;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.OrdersConsumer;
import dev.baton.test.LocalRedisCluster;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A 12-partition queue on a 3-primary cluster, one of whose primaries is frozen ({@code CLIENT
 * PAUSE}): the partitions on the other primaries are settled and claimed as if nothing happened.
 */
class FrozenPartitionTests {

	private static final int PARTITIONS = 12;

	private static LocalRedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	private static int queueNumber;

	private RedisDelayQueues queues;

	private String queue;

	@BeforeAll
	static void startCluster() {
		cluster = RedisServers.startCluster(3);
		connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodes()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void stopCluster() {
		connectionFactory.destroy();
		cluster.close();
	}

	/** Waits until every primary answers again: a freeze outlasts some tests. */
	@AfterEach
	void thaw() {
		cluster.primaries().forEach((primary) -> run(primary, (commands) -> commands.sync().ping()));
		this.queues.close();
	}

	@Test
	void acknowledgementsOfTheOtherPartitionsGoThroughWhileOnePrimaryIsFrozen() {
		ConsumableQueue<Object> orders = ordersWithDueTasks(120);
		List<Delivery<Object>> held = claimAll(orders, 120);
		LocalRedisServer frozen = cluster.primaries().get(0);
		Set<String> frozenIds = idsOn(frozen, held);
		assertThat(frozenIds).isNotEmpty().hasSizeLessThan(120);
		Set<String> done = ConcurrentHashMap.newKeySet();
		Acknowledger acknowledger = new Acknowledger(BatonThreads.PLATFORM, orders, this.queue, (delivery) -> false, (stale) -> {
		}, (dropped) -> {
		}, (waiting) -> {
		});
		acknowledger.start();
		try {
			// A second longer than the wait below, which thus ends within the freeze
			freeze(frozen, Duration.ofSeconds(7));
			held.forEach((delivery) -> acknowledger.acknowledge(delivery, () -> done.add(delivery.id())));

			// Within the freeze: the others wait neither for the frozen primary nor for its retries.
			await().atMost(Duration.ofSeconds(6))
				.until(() -> done.containsAll(held.stream().map(Delivery::id).filter((id) -> !frozenIds.contains(id)).toList()));
			await().atMost(Duration.ofSeconds(20)).until(() -> done.size() == held.size());
			assertThat(inFlight()).isZero();
		}
		finally {
			acknowledger.close(System.nanoTime());
		}
	}

	@Test
	void aConsumerKeepsHandlingTheOtherPartitionsTasksWhileOnePrimaryIsFrozen() {
		this.queue = "orders";
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.keyPrefix("consumed-" + (++queueNumber) + ":")
			.partitions((name) -> PARTITIONS)
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		try (OrdersConsumer consumer = new OrdersConsumer(this.queues)) {
			List<String> ids = IntStream.range(0, 600).mapToObj((i) -> "o-" + i).toList();
			this.queues.get("orders", String.class)
				.scheduleAll(ids.stream().map((id) -> NewTask.of(id, "x", Duration.ofSeconds(2))).toList());
			LocalRedisServer frozen = cluster.primaries().get(0);
			Set<Integer> frozenPartitions = partitionsOn(frozen);
			List<String> others = ids.stream().filter((id) -> !frozenPartitions.contains(partitionOf(id))).toList();

			// A second longer than the wait below, which thus ends within the freeze
			freeze(frozen, Duration.ofSeconds(10));

			// Within the freeze: the frozen partitions hold up neither claims nor acknowledgements.
			await().atMost(Duration.ofSeconds(9)).until(() -> consumer.handled().containsAll(others));
			// Claims the frozen primary ran late, after the client gave up on them, keep their tasks
			// invisible for the visibility timeout (30 s).
			await().atMost(Duration.ofSeconds(60)).until(() -> consumer.handled().containsAll(ids));
		}
	}

	/**
	 * With one worker and no prefetch, a task whose acknowledgement waits for the frozen primary
	 * takes no room from the claims of the other partitions' tasks: its permit is lent while it
	 * waits (before, the container claimed nothing until the freeze ended or the task's visibility
	 * ran out).
	 */
	@Test
	void anAcknowledgementWaitingForAFrozenPrimaryTakesNoRoomFromTheOtherPartitions() throws Exception {
		this.queue = "orders-" + (++queueNumber);
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> PARTITIONS)
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		LocalRedisServer frozen = cluster.primaries().get(0);
		Set<Integer> frozenPartitions = partitionsOn(frozen);
		List<String> ids = IntStream.range(0, 200).mapToObj((i) -> "o-" + i).toList();
		String freezer = ids.stream().filter((id) -> frozenPartitions.contains(partitionOf(id))).findFirst().orElseThrow();
		// Few: each claim of one task may wait a round for a frozen partition whose rest ended.
		List<String> others = ids.stream().filter((id) -> !frozenPartitions.contains(partitionOf(id))).limit(3).toList();
		FreezingHandler handler = new FreezingHandler(freezer, frozen);
		DelayedTaskListenerRegistry registry = DelayedTaskListenerRegistry.builder(this.queues)
			.settings((name) -> new ListenerSettings(3, new BackoffPolicy(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10)),
					Duration.ofSeconds(30), 8, 0, Duration.ofSeconds(1), Duration.ofSeconds(2)))
			.build();
		registry.register(new DelayedTaskEndpoint(this.queue, handler,
				FreezingHandler.class.getDeclaredMethod("handle", String.class, TaskContext.class), String.class, 1, null,
				null, null, null, null, true));
		DelayQueue<String> orders = this.queues.get(this.queue, String.class);
		orders.scheduleAll(List.of(NewTask.of(freezer, "x", Duration.ZERO)));
		orders.scheduleAll(others.stream().map((id) -> NewTask.of(id, "x", Duration.ofSeconds(1))).toList());
		registry.start();
		try {
			// The freeze (10 s) begins when the first task is handled; its acknowledgement waits for it.
			await().atMost(Duration.ofSeconds(8)).until(() -> handler.handled.containsAll(others));
		}
		finally {
			registry.stop();
		}
	}

	@Test
	void extensionsOfTheOtherPartitionsAreConfirmedWhileOnePrimaryIsFrozen() {
		ConsumableQueue<Object> orders = ordersWithDueTasks(60);
		List<Delivery<Object>> held = claimAll(orders, 60);
		LocalRedisServer frozen = cluster.primaries().get(2);
		Set<String> frozenIds = idsOn(frozen, held);
		assertThat(frozenIds).isNotEmpty().hasSizeLessThan(60);

		freeze(frozen, Duration.ofSeconds(4));
		// Bounded by a third of the timeout: 1 s, within the freeze.
		Throwable failure = catchThrowable(() -> orders.extendVisibility(held, Duration.ofSeconds(3)));

		assertThat(failure).isInstanceOfSatisfying(PartialSettlementException.class, (partial) -> {
			assertThat(partial.unsettled()).extracting(Delivery::id).containsExactlyInAnyOrderElementsOf(frozenIds);
			assertThat(partial.stale()).isEmpty();
		});
	}

	@Test
	void aClaimAsksAFrozenPartitionOnceAndHandsOutTheOthersTasks() {
		ConsumableQueue<Object> orders = ordersWithDueTasks(240);
		LocalRedisServer frozen = cluster.primaries().get(1);
		Set<Integer> frozenPartitions = partitionsOn(frozen);
		// Every primary has the claim script then: none asks for its text after the thaw.
		((ConsumableQueue<?>) this.queues.get("warm-up", String.class)).claim(1, Duration.ofMinutes(1));
		long scriptsBefore = scriptCalls(frozen);

		freeze(frozen, Duration.ofSeconds(4));
		List<Delivery<Object>> claimed = orders.claim(120, Duration.ofMinutes(1)).deliveries();

		assertThat(claimed).isNotEmpty()
			.allSatisfy((delivery) -> assertThat(frozenPartitions).doesNotContain(partitionOf(delivery.id())));
		// The claims the frozen primary got run once it thaws; answered too late, each hands its tasks back.
		int claimsAndHandBacks = 2 * frozenPartitions.size();
		await().atMost(Duration.ofSeconds(15)).until(() -> scriptCalls(frozen) - scriptsBefore >= claimsAndHandBacks);
		await().pollDelay(Duration.ofMillis(500)).until(() -> true);
		assertThat(scriptCalls(frozen) - scriptsBefore).as("claim and hand-back scripts the frozen primary got")
			.isEqualTo(claimsAndHandBacks);
		assertThat(inFlight()).isEqualTo(claimed.size());
	}

	private ConsumableQueue<Object> ordersWithDueTasks(int tasks) {
		this.queue = "orders-" + (++queueNumber);
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> PARTITIONS)
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		DelayQueue<String> orders = this.queues.get(this.queue, String.class);
		orders.scheduleAll(IntStream.range(0, tasks).mapToObj((i) -> NewTask.of("o-" + i, "x", Duration.ZERO)).toList());
		@SuppressWarnings("unchecked")
		ConsumableQueue<Object> consumable = (ConsumableQueue<Object>) (ConsumableQueue<?>) orders;
		return consumable;
	}

	private long inFlight() {
		return this.queues.get(this.queue, String.class).stats().inFlight();
	}

	private static List<Delivery<Object>> claimAll(ConsumableQueue<Object> orders, int tasks) {
		List<Delivery<Object>> held = new ArrayList<>();
		while (held.size() < tasks) {
			held.addAll(orders.claim(tasks - held.size(), Duration.ofMinutes(1)).deliveries());
		}
		return held;
	}

	/** The partition of a task: the CRC-32 of its id modulo the partitions, as the guide says. */
	private static int partitionOf(String id) {
		CRC32 crc = new CRC32();
		crc.update(id.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % PARTITIONS);
	}

	private Set<String> idsOn(LocalRedisServer primary, List<Delivery<Object>> deliveries) {
		Set<Integer> partitions = partitionsOn(primary);
		return deliveries.stream().map(Delivery::id).filter((id) -> partitions.contains(partitionOf(id)))
			.collect(Collectors.toSet());
	}

	/** The partitions whose keys the primary serves: it answers for them instead of redirecting. */
	private Set<Integer> partitionsOn(LocalRedisServer primary) {
		return IntStream.range(0, PARTITIONS).filter((partition) -> {
			// The slot follows the hash tag alone, whatever the prefix.
			String key = (partition == 0) ? "baton:q:{" + this.queue + "}:due"
					: "baton:q:{" + this.queue + "#" + partition + "}:p" + partition + ":due";
			try {
				run(primary, (commands) -> commands.sync().exists(key));
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		}).boxed().collect(Collectors.toSet());
	}

	/** Freezes a primary for 10 s when it handles a given task. */
	static final class FreezingHandler {

		final Set<String> handled = ConcurrentHashMap.newKeySet();

		private final String freezer;

		private final LocalRedisServer primary;

		FreezingHandler(String freezer, LocalRedisServer primary) {
			this.freezer = freezer;
			this.primary = primary;
		}

		void handle(String payload, TaskContext context) {
			if (context.id().equals(this.freezer)) {
				freeze(this.primary, Duration.ofSeconds(10));
			}
			this.handled.add(context.id());
		}

	}

	private static void freeze(LocalRedisServer primary, Duration duration) {
		run(primary, (commands) -> commands.sync().clientPause(duration.toMillis()));
	}

	/** The scripts the server ran so far, by hash or by text. */
	private static long scriptCalls(LocalRedisServer primary) {
		String stats = run(primary, (commands) -> commands.sync().info("commandstats"));
		long calls = 0;
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				calls += Long.parseLong(line.replaceAll("^cmdstat_\\w+:calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

	private static <T> T run(LocalRedisServer server, Function<StatefulRedisConnection<String, String>, T> command) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return command.apply(connection);
		}
		finally {
			client.shutdown();
		}
	}

}
