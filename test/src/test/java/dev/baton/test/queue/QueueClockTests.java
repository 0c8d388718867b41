package dev.baton.test.queue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

@RedisTest
class QueueClockTests {

	private RedisDelayQueues queues;

	private DelayQueue<String> reminders;

	@BeforeEach
	void createQueue(RedisConnectionFactory connectionFactory) {
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		this.reminders = this.queues.get("reminders", String.class);
	}

	@AfterEach
	void closeQueues() {
		this.queues.close();
	}

	@Test
	void advancingByThirtyMinutesMakesWhatFallsDueWithinThemDueNowInOrder() {
		this.reminders.schedule("second", "b", Duration.ofMinutes(29));
		this.reminders.schedule("first", "a", Duration.ofMinutes(20));
		this.reminders.schedule("later", "c", Duration.ofHours(2));
		Instant laterDueAt = this.reminders.find("later").orElseThrow().dueAt();

		assertThat(QueueClock.advance(this.reminders, Duration.ofMinutes(30))).isEqualTo(2);

		assertThat(this.reminders.poll(10)).extracting(Delivery::id).containsExactly("first", "second");
		ScheduledTask<String> later = this.reminders.find("later").orElseThrow();
		assertThat(later.dueAt()).isEqualTo(laterDueAt.minus(Duration.ofMinutes(30)));
		assertThat(later.inFlight()).isFalse();
	}

	@Test
	void tasksInFlightAndTasksScheduledAfterwardsAreNotMoved() {
		this.reminders.schedule("running", "a", Duration.ZERO);
		List<Delivery<String>> running = this.reminders.poll(1);
		assertThat(QueueClock.advance(this.reminders, Duration.ofHours(1))).isZero();
		this.reminders.schedule("afterwards", "b", Duration.ofMinutes(10));

		assertThat(this.reminders.poll(10)).isEmpty();
		running.get(0).ack();
		assertThat(this.reminders.stats().inFlight()).isZero();
	}

	@Test
	void runAllNowMakesEveryWaitingTaskDue() {
		this.reminders.scheduleAt("next-year", "a", Instant.now().plus(Duration.ofDays(366)));
		this.reminders.scheduleAt("far", "b", DelayQueue.MAX_DUE_AT);

		assertThat(QueueClock.runAllNow(this.reminders)).isEqualTo(2);
		assertThat(this.reminders.poll(10)).extracting(Delivery::id).containsExactly("next-year", "far");
	}

	@Test
	void refusesANegativeStepAndQueuesThatAreNotBatons() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueClock.advance(this.reminders, Duration.ofSeconds(-1)))
			.withMessageContaining("negative");
		@SuppressWarnings("unchecked")
		DelayQueue<String> other = (DelayQueue<String>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueue.class }, (proxy, method, args) -> method.invoke(this.reminders, args));
		assertThatIllegalArgumentException().isThrownBy(() -> QueueClock.advance(other, Duration.ofMinutes(1)))
			.withMessageContaining("queue 'reminders'");
	}

}
