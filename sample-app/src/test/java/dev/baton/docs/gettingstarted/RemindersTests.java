package dev.baton.docs.gettingstarted;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import dev.baton.test.queue.QueueClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest
@RedisTest
class RemindersTests {

	@Autowired
	Reminders reminders;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> queue;

	@Test
	void remindsThirtyMinutesLater() {
		String id = reminders.remindLater(new Reminder("u-1", "pay the invoice"));
		assertThat(queue.find(id)).isPresent();

		QueueClock.advance(queue, Duration.ofMinutes(30));

		await().atMost(Duration.ofSeconds(10)).until(() -> queue.find(id).isEmpty());
		assertThat(queue.stats().dead()).isZero();
	}
}
