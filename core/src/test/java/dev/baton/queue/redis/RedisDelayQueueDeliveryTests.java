package dev.baton.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.ConsumableQueue.Claim;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueDeliveryTests extends OrderQueueTests {

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	@Test
	void deliversDueTaskWithItsPayloadAndFirstAttempt() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);

		List<Delivery<Order>> deliveries = this.queue.poll(10);

		assertThat(deliveries).singleElement().satisfies((delivery) -> {
			assertThat(delivery.id()).isEqualTo("o-1");
			assertThat(delivery.payload()).isEqualTo(new Order("o-1", 5));
			assertThat(delivery.attempt()).isEqualTo(1);
			assertThat(delivery.dueAt()).isAfterOrEqualTo(delivery.scheduledAt());
		});
		assertThat(this.queue.poll(10)).isEmpty();
	}

	@Test
	void doesNotDeliverTaskBeforeItIsDue() {
		this.queue.schedule("later", new Order("later", 1), Duration.ofMinutes(5));

		Claim<Order> claim = this.queue.claim(10, VISIBILITY);

		assertThat(claim.deliveries()).isEmpty();
		assertThat(claim.nextDueIn()).isBetween(Duration.ofMinutes(4), Duration.ofMinutes(5));
	}

	@Test
	void claimSaysNothingWaitsWhenQueueIsEmpty() {
		assertThat(this.queue.claim(10, VISIBILITY).nextDueIn()).isNull();
	}

	@Test
	void claimSaysToLookAgainWhenAnInFlightDeliveryExpires() {
		this.queue.schedule("held", new Order("held", 1), Duration.ZERO);
		this.queue.schedule("later", new Order("later", 1), Duration.ofMinutes(5));

		Claim<Order> claim = this.queue.claim(1, Duration.ofSeconds(20));

		assertThat(claim.deliveries()).hasSize(1);
		assertThat(claim.nextDueIn()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
	}

	@Test
	void claimSaysMoreAreDueWhenItTookOnlySome() {
		this.queue.schedule("a", new Order("a", 1), Duration.ZERO);
		this.queue.schedule("b", new Order("b", 1), Duration.ZERO);

		Claim<Order> claim = this.queue.claim(1, VISIBILITY);

		assertThat(claim.deliveries()).hasSize(1);
		assertThat(claim.nextDueIn()).isEqualTo(Duration.ZERO);
	}

	@Test
	void deliversTasksDueInTheSameMillisecondInSchedulingOrder() {
		List<NewTask<Order>> tasks = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			tasks.add(NewTask.of("t-" + i, new Order("t-" + i, i), Duration.ZERO));
		}
		this.queue.scheduleAll(tasks);

		List<Delivery<Order>> deliveries = this.queue.poll(1000);

		assertThat(deliveries).extracting(Delivery::id)
			.containsExactlyElementsOf(tasks.stream().map(NewTask::id).toList());
	}

	@Test
	void deliversTasksScheduledOneByOneInSchedulingOrder() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			ids.add(this.queue.schedule(new Order("n", i), Duration.ZERO));
		}

		assertThat(this.queue.poll(200)).extracting(Delivery::id).containsExactlyElementsOf(ids);
	}

	@Test
	void deliversInDueOrderNotSchedulingOrder(StringRedisTemplate redis) {
		this.queue.schedule("second", new Order("second", 2), Duration.ofMillis(200));
		this.queue.schedule("first", new Order("first", 1), Duration.ofMillis(100));

		List<String> delivered = new ArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.queue.poll(10).forEach((delivery) -> delivered.add(delivery.id()));
			return delivered.size() == 2;
		});

		assertThat(delivered).containsExactly("first", "second");
	}

	@Test
	void acknowledgedTaskIsGoneForGood(StringRedisTemplate redis) {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);

		assertThat(delivery.ack()).isTrue();

		assertThat(delivery.ack()).isFalse();
		assertThat(this.queue.find("o-1")).isEmpty();
		assertThat(this.queue.claim(1, Duration.ofMillis(1)).nextDueIn()).isNull();
		// The counter, and the remembered reply of the schedule call, which expires in seconds
		assertThat(redis.keys("baton:q:{orders}:*")).filteredOn((key) -> !key.contains(":reply:"))
			.containsExactly("baton:q:{orders}:seq");
		assertThat(redis.keys("baton:q:{orders}:reply:*"))
			.allSatisfy((key) -> assertThat(redis.getExpire(key)).isBetween(0L, 10L));
	}

	@Test
	void redeliversUnacknowledgedTaskAfterVisibilityTimeout() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> first = this.queue.claim(1, Duration.ofMillis(200)).deliveries().get(0);
		assertThat(this.queue.claim(1, VISIBILITY).deliveries()).isEmpty();

		Delivery<Order> second = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.claim(1, VISIBILITY).deliveries(), (list) -> !list.isEmpty())
			.get(0);

		assertThat(second.id()).isEqualTo("o-1");
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.dueAt()).isEqualTo(first.dueAt());
		assertThat(first.ack()).as("stale delivery").isFalse();
		assertThat(first.retry(Duration.ZERO)).isFalse();
		assertThat(first.deadLetter("stale")).isFalse();
		assertThat(first.extendVisibility(VISIBILITY)).isFalse();
		assertThat(second.ack()).isTrue();
		assertThat(this.queue.find("o-1")).isEmpty();
	}

	@Test
	void expiredDeliveryCannotSettleEvenBeforeRedelivery() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.claim(1, Duration.ofMillis(100)).deliveries().get(0);
		// the next claim requeues the expired delivery, and takes nothing as it asks for none due
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.claim(1, VISIBILITY).deliveries(), (list) -> !list.isEmpty());

		assertThat(delivery.ack()).isFalse();
	}

	@Test
	void extendedVisibilityKeepsTaskFromOtherConsumers() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.claim(1, Duration.ofMillis(300)).deliveries().get(0);

		assertThat(delivery.extendVisibility(Duration.ofMinutes(1))).isTrue();

		await().pollDelay(Duration.ofMillis(600)).until(() -> true);
		assertThat(this.queue.claim(1, VISIBILITY).deliveries()).isEmpty();
		assertThat(delivery.ack()).isTrue();
	}

	@Test
	void extendsVisibilityOfManyDeliveriesAndSkipsStaleOnes() {
		this.queue.schedule("a", new Order("a", 1), Duration.ZERO);
		this.queue.schedule("b", new Order("b", 1), Duration.ZERO);
		List<Delivery<Order>> deliveries = this.queue.claim(2, Duration.ofMillis(300)).deliveries();
		deliveries.get(1).ack();

		assertThat(this.queue.extendVisibility(deliveries, Duration.ofMinutes(1))).as("stale deliveries")
			.containsExactly(deliveries.get(1));

		await().pollDelay(Duration.ofMillis(600)).until(() -> true);
		assertThat(this.queue.claim(2, VISIBILITY).deliveries()).isEmpty();
		assertThat(this.queue.stats().inFlight()).isEqualTo(1);
	}

	@Test
	void extensionNeverShortensTheVisibility() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> delivery = this.queue.claim(1, Duration.ofMinutes(1)).deliveries().get(0);

		assertThat(delivery.extendVisibility(Duration.ofMillis(100))).isTrue();
		assertThat(this.queue.extendVisibility(List.of(delivery), Duration.ofMillis(100))).isEmpty();

		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		assertThat(this.queue.claim(1, VISIBILITY).deliveries()).isEmpty();
		assertThat(delivery.ack()).isTrue();
	}

	@Test
	void acknowledgementReturnsTheStaleDeliveries() {
		this.queue.schedule("a", new Order("a", 1), Duration.ZERO);
		this.queue.schedule("b", new Order("b", 1), Duration.ZERO);
		List<Delivery<Order>> deliveries = this.queue.claim(2, VISIBILITY).deliveries();
		deliveries.get(0).ack();

		assertThat(this.queue.acknowledge(deliveries)).containsExactly(deliveries.get(0));
		assertThat(this.queue.stats().inFlight()).isZero();
	}

	@Test
	void retryRedeliversAfterDelayCountingAttempts() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);
		Delivery<Order> first = this.queue.poll(1).get(0);

		assertThat(first.retry(Duration.ZERO)).isTrue();
		Delivery<Order> second = this.queue.poll(1).get(0);
		assertThat(second.retry(Duration.ofMillis(100))).isTrue();
		assertThat(first.ack()).isFalse();
		Delivery<Order> third = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.poll(1), (list) -> !list.isEmpty())
			.get(0);

		assertThat(second.attempt()).isEqualTo(2);
		assertThat(third.attempt()).isEqualTo(3);
		assertThat(third.payload()).isEqualTo(new Order("o-1", 5));
		assertThat(third.scheduledAt()).isEqualTo(first.scheduledAt());
	}

	@Test
	void retryWithDelayKeepsTaskScheduled() {
		this.queue.schedule("o-1", new Order("o-1", 5), Duration.ZERO);

		this.queue.poll(1).get(0).retry(Duration.ofMinutes(1));

		assertThat(this.queue.poll(1)).isEmpty();
		assertThat(this.queue.stats().scheduled()).isEqualTo(1);
		assertThat(this.queue.find("o-1")).hasValueSatisfying((task) -> assertThat(task.inFlight()).isFalse());
	}

	@Test
	void handBackMakesTasksDueAtOnceWithoutCountingTheAttempt() {
		this.queue.schedule("a", new Order("a", 1), Duration.ZERO);
		this.queue.schedule("b", new Order("b", 2), Duration.ZERO);
		List<Delivery<Order>> held = this.queue.claim(2, VISIBILITY).deliveries();

		this.queue.handBack(held);

		List<Delivery<Order>> again = this.queue.claim(2, VISIBILITY).deliveries();
		assertThat(again).extracting(Delivery::id).containsExactly("a", "b");
		assertThat(again).extracting(Delivery::attempt).containsExactly(1, 1);
		assertThat(held.get(0).ack()).as("handed back delivery is stale").isFalse();
		assertThat(again.get(0).ack()).isTrue();
	}

	@Test
	void onWakeFiresOnlyWhenTaskFallsDueBeforeEveryWaitingTask(StringRedisTemplate redis) throws Exception {
		this.queue.schedule("head", new Order("head", 1), Duration.ofMinutes(10));
		AtomicInteger wakes = new AtomicInteger();
		try (AutoCloseable subscription = this.queue.onWake(wakes::incrementAndGet)) {
			awaitSubscribed(redis, wakes);

			this.queue.schedule("later", new Order("later", 1), Duration.ofMinutes(20));
			this.queue.schedule("earlier", new Order("earlier", 1), Duration.ofMinutes(5));

			await().atMost(Duration.ofSeconds(10)).until(() -> wakes.get() >= 1);
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> wakes.get() == 1);
		}
	}

	@Test
	void onWakeFiresWhenTaskIsScheduledOnEmptyQueue(StringRedisTemplate redis) throws Exception {
		AtomicInteger wakes = new AtomicInteger();
		try (AutoCloseable subscription = this.queue.onWake(wakes::incrementAndGet)) {
			awaitSubscribed(redis, wakes);

			this.queue.schedule(new Order("x", 1), Duration.ofSeconds(30));

			await().atMost(Duration.ofSeconds(10)).until(() -> wakes.get() == 1);
		}
	}

	@Test
	void closedWakeSubscriptionStopsNotifications(StringRedisTemplate redis) throws Exception {
		AtomicInteger wakes = new AtomicInteger();
		AtomicInteger others = new AtomicInteger();
		AutoCloseable subscription = this.queue.onWake(wakes::incrementAndGet);
		try (AutoCloseable other = this.queue.onWake(others::incrementAndGet)) {
			awaitSubscribed(redis, wakes, others);
			subscription.close();

			this.queue.schedule(new Order("x", 1), Duration.ZERO);

			await().atMost(Duration.ofSeconds(10)).until(() -> others.get() == 1);
			assertThat(wakes).hasValue(0);
		}
	}

	@Test
	void wakeUpsReachListenersOnAThreadOfTheBuildersThreadFactory(RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) throws Exception {
		List<Thread> made = new CopyOnWriteArrayList<>();
		List<String> wokenOn = new CopyOnWriteArrayList<>();
		try (RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.threadFactory((task) -> {
				Thread thread = new Thread(task);
				made.add(thread);
				return thread;
			})
			.build()) {
			DelayQueue<Order> orders = queues.get("orders", Order.class);
			try (AutoCloseable subscription = ((ConsumableQueue<Order>) orders)
				.onWake(() -> wokenOn.add(Thread.currentThread().getName()))) {
				awaitSubscribed(redis);
				orders.schedule(new Order("x", 1), Duration.ofSeconds(30));
				await().atMost(Duration.ofSeconds(10)).until(() -> wokenOn.size() >= 2);
			}
		}
		// The subscription's confirmation and the wake-up, never on the client's event loop
		assertThat(wokenOn).containsOnly(WakeChannels.SIGNALS);
		assertThat(made).extracting(Thread::getName).contains(WakeChannels.SIGNALS);
		assertThat(made).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		// Closing the queues ends it
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(made).filteredOn(Thread::isAlive).extracting(Thread::getName)
				.doesNotContain(WakeChannels.SIGNALS));
	}

	static void awaitSubscribed(StringRedisTemplate redis) {
		RedisScript<Long> subscribers = RedisScript.of("return redis.call('PUBSUB', 'NUMSUB', KEYS[1])[2]", Long.class);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> redis.execute(subscribers, List.of("baton:q:{orders}:wake")), (count) -> count == 1);
	}

	/**
	 * Waits for the subscription, and for the wake-up its confirmation gives the first listener
	 * (a reconnect's re-subscription wakes listeners too), then counts from zero.
	 */
	static void awaitSubscribed(StringRedisTemplate redis, AtomicInteger first, AtomicInteger... others) {
		awaitSubscribed(redis);
		await().atMost(Duration.ofSeconds(5)).until(() -> first.get() >= 1);
		first.set(0);
		for (AtomicInteger other : others) {
			other.set(0);
		}
	}

}
