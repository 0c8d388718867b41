package dev.baton.queue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
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

	private static final Duration VISIBILITY_TIMEOUT = Duration.ofSeconds(30);

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
		awaitThaw();
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
		// Few others: each claim of one task may wait a round for a frozen partition whose rest ended.
		OneWorkerFreezing run = startOneWorkerFreezing(3, Duration.ofSeconds(10), Duration.ofSeconds(2));
		try {
			// The freeze (10 s) begins when the first task is handled; its acknowledgement waits for it.
			await().atMost(Duration.ofSeconds(8)).until(run::othersHandled);
		}
		finally {
			run.registry().stop();
		}
	}

	/**
	 * A graceful stop while a delivery's permit is lent, which waits for the frozen primary: with
	 * one worker and no prefetch, the handler of the first task freezes its partition's primary
	 * for 8 s, the task's acknowledgement moves to the retrying lane and lends its permit, the
	 * other partitions' tasks are handled, and the registry stops (as an application's shutdown
	 * stops it) while the primary is still frozen. Stopping waits for pending acknowledgements
	 * until {@code shutdown-timeout}, here 10 s, longer than the freeze: it ends once the primary
	 * answers, within {@code shutdown-timeout} plus the final hand-back (delayed-tasks.md,
	 * "Shutdown"), with the task acknowledged and nothing left in Redis.
	 */
	@Test
	void aStopWhileAPermitIsLentWaitsForItsAcknowledgementUntilTheShutdownTimeout() throws Exception {
		Duration shutdownTimeout = Duration.ofSeconds(10);

		LentPermitStop stop = stopWhileAPermitIsLent(shutdownTimeout, Duration.ofSeconds(6));

		assertThat(stop.stopping() - stop.handler().thawsNotBefore)
			.as("the others handled and the stop begun within the freeze")
			.isNegative();
		assertThat(stop.took()).as("the stop")
			.isLessThan(shutdownTimeout.plus(DelayedTaskListenerContainer.HAND_BACK_TIMEOUT));
		// Its acknowledgement cannot be confirmed before the primary answers: the stop waited for it.
		assertThat(stop.stopped() - stop.handler().thawsNotBefore).as("the stop ended after the thaw").isPositive();
		assertHandledOnceAndAcknowledged(stop.handler());
	}

	/**
	 * A graceful stop while a delivery's permit is lent, whose deadline comes before the frozen
	 * primary answers: as above, but with a {@code shutdown-timeout} of 2 s, which ends within the
	 * freeze. Stopping has one deadline whatever Redis does, {@code shutdown-timeout} plus the final
	 * hand-back (delayed-tasks.md, "Shutdown"), so it ends before the thaw and gives up on the
	 * acknowledgement. Once the primary answers, the task was handled once and is either
	 * acknowledged (by the calls the primary ran late) or in flight until its visibility timeout,
	 * to be delivered again: nothing in between.
	 */
	@Test
	void aStopWhileAPermitIsLentGivesUpOnItsAcknowledgementAtTheShutdownTimeout() throws Exception {
		Duration shutdownTimeout = Duration.ofSeconds(2);

		LentPermitStop stop = stopWhileAPermitIsLent(shutdownTimeout, Duration.ofSeconds(5));

		assertThat(stop.stopping() + shutdownTimeout.toNanos() - stop.handler().thawsNotBefore)
			.as("the stop's deadline within the freeze")
			.isNegative();
		assertThat(stop.took()).as("the stop")
			.isLessThan(shutdownTimeout.plus(DelayedTaskListenerContainer.HAND_BACK_TIMEOUT));
		assertThat(stop.stopped() - stop.handler().thawsNotBefore).as("the stop ended before the thaw").isNegative();
		awaitThaw();
		String freezer = stop.handler().freezer;
		if (this.queues.get(this.queue, String.class).find(freezer).isPresent()) {
			assertThat(stop.handler().handled).containsOnlyOnce(freezer);
			// Nothing extends it any more: once its visibility runs out, a claim takes it again.
			assertThat(visibleAgainIn(freezer)).as("the task's visibility").isLessThanOrEqualTo(VISIBILITY_TIMEOUT);
			awaitNothingExtendsOrAcknowledges();
		}
		else {
			assertHandledOnceAndAcknowledged(stop.handler());
		}
	}

	/**
	 * Freezes a primary with the handler of its first task, waits until the other partitions'
	 * tasks are handled, then stops the registry as a context's shutdown does.
	 * @param handledWithin how soon the other tasks must be handled: with one permit, they run
	 * only if the waiting acknowledgement lent it
	 */
	private LentPermitStop stopWhileAPermitIsLent(Duration shutdownTimeout, Duration handledWithin) throws Exception {
		OneWorkerFreezing run = startOneWorkerFreezing(2, Duration.ofSeconds(8), shutdownTimeout);
		try {
			await().atMost(handledWithin).until(run::othersHandled);
			long stopping = System.nanoTime();
			run.registry().stop();
			return new LentPermitStop(run.handler(), stopping, System.nanoTime());
		}
		finally {
			run.registry().stop();
		}
	}

	/**
	 * A new partitioned queue handled by one worker without prefetch, started: the handler of its
	 * first task, on primary 0, freezes that primary for {@code freeze}; the others, on the other
	 * primaries, fall due a second later.
	 */
	private OneWorkerFreezing startOneWorkerFreezing(int others, Duration freeze, Duration shutdownTimeout)
			throws Exception {
		partitionedQueue();
		LocalRedisServer frozen = cluster.primaries().get(0);
		Set<Integer> frozenPartitions = partitionsOn(frozen);
		String freezer = ids(frozenPartitions::contains, 1).get(0);
		List<String> otherIds = ids((partition) -> !frozenPartitions.contains(partition), others);
		FreezingHandler handler = new FreezingHandler(freezer, frozen, freeze);
		DelayedTaskListenerRegistry registry = oneWorkerWithoutPrefetch(handler, shutdownTimeout);
		scheduleFreezerFirst(freezer, otherIds);
		registry.start();
		return new OneWorkerFreezing(handler, registry, otherIds);
	}

	private record OneWorkerFreezing(FreezingHandler handler, DelayedTaskListenerRegistry registry,
			List<String> others) {

		boolean othersHandled() {
			return this.handler.handled.containsAll(this.others);
		}

	}

	/** When a stop began and ended, as {@link System#nanoTime()}, and what the handler saw. */
	private record LentPermitStop(FreezingHandler handler, long stopping, long stopped) {

		Duration took() {
			return Duration.ofNanos(this.stopped - this.stopping);
		}

	}

	/**
	 * The freezer was handled once and acknowledged, as every other task, and the stopped
	 * container left nothing that never ends: no task in flight that no consumer extends, no key
	 * without an expiry but the partition records, no thread that would extend or acknowledge.
	 */
	private void assertHandledOnceAndAcknowledged(FreezingHandler handler) {
		assertThat(handler.handled).containsOnlyOnce(handler.freezer);
		DelayQueue<String> orders = this.queues.get(this.queue, String.class);
		assertThat(orders.find(handler.freezer)).as("the acknowledged task").isEmpty();
		assertThat(orders.stats()).extracting(QueueStats::due, QueueStats::inFlight, QueueStats::dead)
			.containsExactly(0L, 0L, 0L);
		assertThat(keysLeftForever()).isEmpty();
		awaitNothingExtendsOrAcknowledges();
	}

	/** The stopped container's threads that extend visibility or send acknowledgements end. */
	private void awaitNothingExtendsOrAcknowledges() {
		await().atMost(Duration.ofSeconds(3)).until(() -> extendingOrAcknowledgingThreads().isEmpty());
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
		partitionedQueue();
		DelayQueue<String> orders = this.queues.get(this.queue, String.class);
		orders.scheduleAll(IntStream.range(0, tasks).mapToObj((i) -> NewTask.of("o-" + i, "x", Duration.ZERO)).toList());
		@SuppressWarnings("unchecked")
		ConsumableQueue<Object> consumable = (ConsumableQueue<Object>) (ConsumableQueue<?>) orders;
		return consumable;
	}

	/** A new queue of {@link #PARTITIONS} partitions, whose calls give up after a second. */
	private void partitionedQueue() {
		this.queue = "orders-" + (++queueNumber);
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> PARTITIONS)
			.commandTimeout(Duration.ofSeconds(1))
			.build();
	}

	/** A registry whose one container handles the queue with one worker and claims nothing ahead. */
	private DelayedTaskListenerRegistry oneWorkerWithoutPrefetch(FreezingHandler handler, Duration shutdownTimeout)
			throws NoSuchMethodException {
		DelayedTaskListenerRegistry registry = DelayedTaskListenerRegistry.builder(this.queues)
			.settings((name) -> new ListenerSettings(3, new BackoffPolicy(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10)),
					VISIBILITY_TIMEOUT, 8, 0, Duration.ofSeconds(1), shutdownTimeout))
			// A phase long enough that the shutdown timeout is not cut: the stop waits as long as it says
			.shutdownPhaseTimeout(shutdownTimeout.plus(Duration.ofSeconds(3)))
			.build();
		registry.register(new DelayedTaskEndpoint(this.queue, handler,
				FreezingHandler.class.getDeclaredMethod("handle", String.class, TaskContext.class), String.class, 1, null,
				null, null, null, null, true));
		return registry;
	}

	/** The freezer due at once, the others a second later: the one worker takes the freezer first. */
	private void scheduleFreezerFirst(String freezer, List<String> others) {
		DelayQueue<String> orders = this.queues.get(this.queue, String.class);
		orders.scheduleAll(List.of(NewTask.of(freezer, "x", Duration.ZERO)));
		orders.scheduleAll(others.stream().map((id) -> NewTask.of(id, "x", Duration.ofSeconds(1))).toList());
	}

	/** The first {@code count} task ids ({@code o-0}, {@code o-1}, ...) whose partition matches. */
	private static List<String> ids(IntPredicate partition, int count) {
		return IntStream.range(0, 1000).mapToObj((i) -> "o-" + i)
			.filter((id) -> partition.test(partitionOf(id)))
			.limit(count)
			.toList();
	}

	/**
	 * The queue's keys, on every primary, that never expire, but for its partition records: what
	 * is left of a task (its payload, an in-flight entry) once the queue is empty and no consumer
	 * runs.
	 */
	private List<String> keysLeftForever() {
		String pattern = "*{" + this.queue + "[}#]*";
		return cluster.primaries()
			.stream()
			.flatMap((primary) -> run(primary, (commands) -> commands.sync()
				.keys(pattern)
				.stream()
				.filter((key) -> !key.endsWith(":partitions") && commands.sync().ttl(key) == -1)
				.toList()).stream())
			.toList();
	}

	/** The queue's threads that extend visibility or send acknowledgements, still alive. */
	private List<String> extendingOrAcknowledgingThreads() {
		Set<String> names = Set.of("baton-queue-visibility-" + this.queue, "baton-ack-" + this.queue,
				"baton-ack-retry-" + this.queue);
		return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
			.filter(names::contains)
			.toList();
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
			String key = key(partition, "due");
			try {
				run(primary, (commands) -> commands.sync().exists(key));
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		}).boxed().collect(Collectors.toSet());
	}

	/** A key of the queue's partition, under the default prefix. */
	private String key(int partition, String suffix) {
		return RedisDelayQueues.queueKey(RedisDelayQueues.DEFAULT_KEY_PREFIX, this.queue, partition, suffix);
	}

	/** How long until an in-flight task's visibility ends, on the server's clock. */
	private Duration visibleAgainIn(String id) {
		int partition = partitionOf(id);
		LocalRedisServer primary = cluster.primaries()
			.stream()
			.filter((candidate) -> partitionsOn(candidate).contains(partition))
			.findFirst()
			.orElseThrow();
		return run(primary, (commands) -> {
			Double deadline = commands.sync().zscore(key(partition, "inflight"), id);
			assertThat(deadline).as("the in-flight entry of " + id).isNotNull();
			List<String> time = commands.sync().time();
			long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
			return Duration.ofMillis(deadline.longValue() - nowMillis);
		});
	}

	/** Freezes a primary for a while when it handles a given task. */
	static final class FreezingHandler {

		/** The id of each handling, in order. */
		final Queue<String> handled = new ConcurrentLinkedQueue<>();

		/** No earlier than when the primary answers again, as {@link System#nanoTime()}, once frozen. */
		volatile long thawsNotBefore;

		final String freezer;

		private final LocalRedisServer primary;

		private final Duration freeze;

		FreezingHandler(String freezer, LocalRedisServer primary, Duration freeze) {
			this.freezer = freezer;
			this.primary = primary;
			this.freeze = freeze;
		}

		void handle(String payload, TaskContext context) {
			if (context.id().equals(this.freezer)) {
				// Taken before the pause is sent: the server pauses later, and thus thaws later
				this.thawsNotBefore = System.nanoTime() + this.freeze.toNanos();
				freeze(this.primary, this.freeze);
			}
			this.handled.add(context.id());
		}

	}

	/** Waits until every primary answers: a frozen one runs the commands it got once it thaws. */
	private static void awaitThaw() {
		cluster.primaries().forEach((primary) -> run(primary, (commands) -> commands.sync().ping()));
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
