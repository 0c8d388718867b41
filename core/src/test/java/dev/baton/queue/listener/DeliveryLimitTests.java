package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task delivered more than {@code max-deliveries} times without being settled (its handler
 * crashed the worker each time, or the instance died) is parked as a dead letter instead of
 * being delivered for ever.
 */
@RedisTest
class DeliveryLimitTests {

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void aTaskDeliveredTooOftenWithoutBeingSettledIsDeadLetteredWithoutRunning(
			RedisConnectionFactory connectionFactory) throws InterruptedException {
		Recorder handler = new Recorder();
		ListenerSettings settings = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(30),
				32, 0, Duration.ofSeconds(1), Duration.ofSeconds(2));
		ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, handler);
		this.contexts.add(app);
		DelayQueue<Parcel> queue = app.queues.get("crashing", Parcel.class);
		queue.schedule("c-1", new Parcel("c-1", 1), Duration.ZERO);
		// Ten deliveries whose consumer died: each ran out of visibility without being settled
		stall(queue, ListenerSettings.DEFAULT_MAX_DELIVERIES);

		app.start();

		await().atMost(Duration.ofSeconds(10)).until(() -> !queue.deadLetters(1).isEmpty());
		DeadLetter<Parcel> parked = queue.deadLetters(1).get(0);
		assertThat(parked.id()).isEqualTo("c-1");
		assertThat(parked.reason()).contains("delivered 11 times");
		assertThat(handler.ids).isEmpty();
		assertThat(queue.find("c-1")).isEmpty();
	}

	@Test
	void aTaskIsDeliveredAtLeastMaxAttemptsTimes(RedisConnectionFactory connectionFactory)
			throws InterruptedException {
		Recorder handler = new Recorder();
		ListenerSettings settings = new ListenerSettings(5, ListenerSettings.DEFAULTS.backoff(), Duration.ofSeconds(30),
				32, 0, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(2), 2);
		ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, handler);
		this.contexts.add(app);
		DelayQueue<Parcel> queue = app.queues.get("crashing", Parcel.class);
		queue.schedule("c-1", new Parcel("c-1", 1), Duration.ZERO);
		stall(queue, 4);

		app.start();

		// The fifth delivery is within max-attempts: it runs, whatever max-deliveries says
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.ids.contains("c-1"));
		assertThat(queue.deadLetters(1)).isEmpty();
	}

	/** Claims the task {@code times} times and lets each delivery run out of visibility. */
	private static void stall(DelayQueue<Parcel> queue, int times) throws InterruptedException {
		@SuppressWarnings("unchecked")
		ConsumableQueue<Parcel> consumable = (ConsumableQueue<Parcel>) queue;
		for (int i = 1; i <= times; i++) {
			List<Delivery<Parcel>> claimed = consumable.claim(1, Duration.ofMillis(1)).deliveries();
			assertThat(claimed).singleElement().satisfies((delivery) -> assertThat(delivery.attempt()).isPositive());
			Thread.sleep(5);
		}
	}

	static class Recorder {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "crashing")
		void handle(Parcel parcel) {
			this.ids.add(parcel.id());
		}

	}

}
