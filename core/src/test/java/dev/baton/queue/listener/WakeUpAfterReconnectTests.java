package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wake-up published while a consumer's connection was cut is lost; the consumer must claim as
 * soon as it is subscribed again, not when its idle poll comes round.
 */
class WakeUpAfterReconnectTests {

	private final ProxiedRedis redis = ProxiedRedis.start();

	private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		this.redis.close();
	}

	@Test
	void taskScheduledWhileTheConsumerWasCutOffRunsOnceItReconnects() {
		Recorder handler = new Recorder();
		ListenerSettings slowPolling = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(),
				Duration.ofSeconds(30), 32, 0, Duration.ofSeconds(60), Duration.ofSeconds(2));
		ListenerContext consumer = new ListenerContext(this.redis.throughProxy(), (queue) -> slowPolling, handler);
		this.closeables.add(consumer.start());
		RedisDelayQueues producerQueues = RedisDelayQueues.builder(this.redis.direct(), JsonMapper.builder().build())
			.build();
		this.closeables.add(producerQueues);
		DelayQueue<Parcel> orders = producerQueues.get("orders", Parcel.class);
		orders.schedule("before", new Parcel("before", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.ids.contains("before"));

		this.redis.proxy().cut();
		orders.schedule("while-cut", new Parcel("while-cut", 2), Duration.ZERO);
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		this.redis.proxy().heal();

		// The idle poll is a minute away: only the re-subscription can wake the consumer this soon
		await().atMost(Duration.ofSeconds(15)).until(() -> handler.ids.contains("while-cut"));
		assertThat(handler.ids).containsExactly("before", "while-cut");
	}

	static class Recorder {

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "orders")
		void handle(Parcel parcel) {
			this.ids.add(parcel.id());
		}

	}

}
