package dev.baton.docs;

import java.time.Duration;

import dev.baton.docs.gettingstarted.Reminder;
import dev.baton.docs.gettingstarted.Reminders;
import dev.baton.docs.gettingstarted.Settlement;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The application of docs/getting-started.md, run as the page builds it: its classes, as shown,
 * configured with {@code spring.data.redis.url}.
 */
@SpringBootTest(classes = GettingStartedTests.GettingStartedApplication.class)
@DirtiesContext
class GettingStartedTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisServers.shared().url());
	}

	@Autowired
	Reminders reminders;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> queue;

	@Autowired
	Settlement settlement;

	@Autowired
	LockManager locks;

	@Test
	void remindersAreScheduledAndHandled() {
		String id = this.reminders.remindLater(new Reminder("u-1", "pay the invoice"));
		assertThat(this.queue.find(id)).isPresent();

		// Thirty minutes are too long for a test: bring the task due now.
		this.queue.reschedule(id, Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> this.queue.find(id).isEmpty());
		assertThat(this.queue.stats().dead()).isZero();
	}

	@Test
	void settlementRunsOnceAtATime() {
		this.settlement.settle("acc-1");
		try (LockLease running = this.locks.tryAcquire("settlement:acc-1", Duration.ZERO).orElseThrow()) {
			assertThatIllegalStateException().isThrownBy(() -> this.settlement.settle("acc-1"))
				.withMessage("settlement already running");
			this.settlement.settle("acc-2");
		}
	}

	@SpringBootApplication(scanBasePackageClasses = Reminders.class)
	static class GettingStartedApplication {

	}

}
