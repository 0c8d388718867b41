package dev.baton.sample.orders;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import dev.baton.test.queue.QueueClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The example of docs/testing.md: a {@code @DelayedTask} handler tested end to end. */
@SpringBootTest(properties = "app.orders.payment-timeout=30m")
@RedisTest
@DirtiesContext
class OrderTimeoutTests {

	@Autowired
	OrderService orders;

	@Autowired
	DelayQueue<Long> timeouts;

	@Test
	void unpaidOrderIsCancelledThirtyMinutesLater() {
		Order order = orders.place(null);
		assertThat(QueueClock.advance(timeouts, Duration.ofMinutes(29))).isZero();

		assertThat(QueueClock.advance(timeouts, Duration.ofMinutes(1))).isEqualTo(1);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> orders.find(order.id()).orElseThrow().status() == OrderStatus.CANCELLED);
		// The acknowledgement follows the handler's return on the container's acknowledging thread.
		await().atMost(Duration.ofSeconds(2)).until(() -> timeouts.stats().inFlight() == 0);
		assertThat(timeouts.find(String.valueOf(order.id()))).isEmpty();
	}

	@Test
	void paidOrderIsNotCancelled() {
		Order order = orders.place(null);
		orders.pay(order.id());

		assertThat(QueueClock.runAllNow(timeouts)).isZero();
		assertThat(orders.find(order.id()).orElseThrow().status()).isEqualTo(OrderStatus.PAID);
	}

}
