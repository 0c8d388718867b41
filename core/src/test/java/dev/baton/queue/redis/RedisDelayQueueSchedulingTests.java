package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueSchedulingTests extends OrderQueueTests {

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	@Test
	void refusesSecondTaskWithSameIdAndKeepsFirstPayload() {
		assertThat(this.queue.schedule("o-1", new Order("first", 1), Duration.ofMinutes(1))).isTrue();

		assertThat(this.queue.schedule("o-1", new Order("second", 2), Duration.ZERO)).isFalse();
		assertThat(this.queue.scheduleAt("o-1", new Order("third", 3), Instant.EPOCH)).isFalse();

		assertThat(this.queue.find("o-1")).hasValueSatisfying(
				(task) -> assertThat(task.payload()).isEqualTo(new Order("first", 1)));
		assertThat(this.queue.poll(10)).isEmpty();
	}

	@Test
	void refusesSameIdWhileInFlightAndAcceptsItOnceDone() {
		this.queue.schedule("o-1", new Order("first", 1), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);

		assertThat(this.queue.schedule("o-1", new Order("second", 2), Duration.ZERO)).isFalse();
		assertThat(this.queue.find("o-1")).hasValueSatisfying((task) -> {
			assertThat(task.payload()).isEqualTo(new Order("first", 1));
			assertThat(task.inFlight()).isTrue();
		});
		delivery.ack();
		assertThat(this.queue.schedule("o-1", new Order("second", 2), Duration.ZERO)).isTrue();
		assertThat(delivery.ack()).as("delivery of the earlier task with this id").isFalse();
	}

	@Test
	void generatesDistinctIds() {
		String first = this.queue.schedule(new Order("a", 1), Duration.ZERO);
		String second = this.queue.schedule(new Order("a", 1), Duration.ZERO);

		assertThat(first).isNotEqualTo(second);
		assertThat(this.queue.poll(10)).extracting(Delivery::id).containsExactly(first, second);
	}

	@Test
	void cancelBeforeDeliveryDeletesTaskForGood() {
		this.queue.schedule("o-1", new Order("o-1", 1), Duration.ofMillis(100));

		assertThat(this.queue.cancel("o-1")).isTrue();

		assertThat(this.queue.cancel("o-1")).isFalse();
		assertThat(this.queue.find("o-1")).isEmpty();
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		assertThat(this.queue.claim(10, VISIBILITY).deliveries()).isEmpty();
		assertThat(this.queue.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, null));
	}

	@Test
	void cancelDuringDeliveryFailsAndLeavesDeliveryIntact() {
		this.queue.schedule("o-1", new Order("o-1", 1), Duration.ZERO);
		Delivery<Order> delivery = this.queue.poll(1).get(0);

		assertThat(this.queue.cancel("o-1")).isFalse();

		assertThat(delivery.ack()).isTrue();
	}

	@Test
	void cancelOfUnknownTaskFails() {
		assertThat(this.queue.cancel("nope")).isFalse();
	}

	@Test
	void rescheduleMovesWaitingTask() {
		this.queue.schedule("o-1", new Order("o-1", 1), Duration.ofHours(1));
		Instant before = this.queue.find("o-1").orElseThrow().dueAt();

		assertThat(this.queue.reschedule("o-1", Duration.ZERO)).isTrue();

		List<Delivery<Order>> deliveries = this.queue.poll(1);
		assertThat(deliveries).extracting(Delivery::id).containsExactly("o-1");
		assertThat(deliveries.get(0).dueAt()).isBefore(before);
		assertThat(deliveries.get(0).attempt()).isEqualTo(1);
	}

	@Test
	void rescheduleCanPostponeDueTask() {
		this.queue.schedule("o-1", new Order("o-1", 1), Duration.ZERO);

		assertThat(this.queue.reschedule("o-1", Duration.ofHours(1))).isTrue();

		assertThat(this.queue.poll(1)).isEmpty();
		assertThat(this.queue.stats().scheduled()).isEqualTo(1);
	}

	@Test
	void rescheduleFailsForTaskInFlightOrUnknown() {
		this.queue.schedule("o-1", new Order("o-1", 1), Duration.ZERO);
		this.queue.poll(1);

		assertThat(this.queue.reschedule("o-1", Duration.ZERO)).isFalse();
		assertThat(this.queue.reschedule("nope", Duration.ZERO)).isFalse();
	}

	@Test
	void scheduleAtUsesTheGivenInstant() {
		Instant dueAt = Instant.now().plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);

		assertThat(this.queue.scheduleAt("o-1", new Order("o-1", 1), dueAt)).isTrue();

		assertThat(this.queue.find("o-1")).hasValueSatisfying((task) -> assertThat(task.dueAt()).isEqualTo(dueAt));
	}

	@Test
	void scheduleAtInThePastIsDueNow() {
		this.queue.scheduleAt("o-1", new Order("o-1", 1), Instant.now().minus(Duration.ofDays(1)));

		assertThat(this.queue.poll(1)).extracting(Delivery::id).containsExactly("o-1");
	}

	@Test
	void scheduleAtBeforeTheEpochIsDueNow() {
		this.queue.scheduleAt("o-1", new Order("o-1", 1), Instant.parse("1900-01-01T00:00:00Z"));

		assertThat(this.queue.poll(1)).extracting(Delivery::id).containsExactly("o-1");
	}

	@Test
	void findDescribesWaitingTask() {
		this.queue.schedule("o-1", new Order("o-1", 7), Duration.ofMinutes(10));

		ScheduledTask<Order> task = this.queue.find("o-1").orElseThrow();

		assertThat(task.id()).isEqualTo("o-1");
		assertThat(task.payload()).isEqualTo(new Order("o-1", 7));
		assertThat(task.inFlight()).isFalse();
		assertThat(Duration.between(task.scheduledAt(), task.dueAt())).isEqualTo(Duration.ofMinutes(10));
	}

	@Test
	void peekShowsEarliestTasksWithoutClaimingThem() {
		this.queue.schedule("c", new Order("c", 3), Duration.ofMinutes(3));
		this.queue.schedule("a", new Order("a", 1), Duration.ZERO);
		this.queue.schedule("b", new Order("b", 2), Duration.ofMinutes(2));

		assertThat(this.queue.peek(2)).extracting(ScheduledTask::id).containsExactly("a", "b");
		assertThat(this.queue.poll(10)).extracting(Delivery::id).containsExactly("a");
		assertThat(this.queue.peek(10)).extracting(ScheduledTask::id).containsExactly("b", "c");
	}

	@Test
	void peekAndFindShowAnUnreadableTaskAsSuchBesideTheOthers() {
		this.queues.get("orders", String.class).schedule("poison", "not an order", Duration.ofMinutes(1));
		this.queue.schedule("fine", new Order("fine", 1), Duration.ofMinutes(2));

		assertThat(this.queue.peek(10)).satisfiesExactly((poison) -> {
			assertThat(poison.id()).isEqualTo("poison");
			assertThat(poison.payload()).isNull();
			assertThat(poison.unreadablePayload()).isEqualTo("\"not an order\"");
		}, (fine) -> {
			assertThat(fine.payload()).isEqualTo(new Order("fine", 1));
			assertThat(fine.unreadablePayload()).isNull();
		});
		assertThat(this.queue.find("poison")).hasValueSatisfying((poison) -> {
			assertThat(poison.payload()).isNull();
			assertThat(poison.unreadablePayload()).isEqualTo("\"not an order\"");
		});
	}

	@Test
	void peekAndDeadLettersRefuseALimitAboveTheirMaximum() {
		assertThat(this.queue.peek(DelayQueue.MAX_PEEK)).isEmpty();
		assertThat(this.queue.deadLetters(DelayQueue.MAX_PEEK)).isEmpty();

		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.peek(DelayQueue.MAX_PEEK + 1))
			.withMessage("Maximum number of tasks to read must be at most 1000 (DelayQueue.MAX_PEEK), was 1001");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.deadLetters(Integer.MAX_VALUE))
			.withMessageContaining("at most 1000 (DelayQueue.MAX_PEEK)");
	}

	@Test
	void statsCountTasksByState() {
		this.queue.schedule("later-1", new Order("l", 1), Duration.ofHours(1));
		this.queue.schedule("later-2", new Order("l", 1), Duration.ofHours(1));
		this.queue.schedule("due-1", new Order("d", 1), Duration.ZERO);
		this.queue.schedule("due-2", new Order("d", 1), Duration.ZERO);
		this.queue.schedule("due-3", new Order("d", 1), Duration.ZERO);
		List<Delivery<Order>> claimed = this.queue.poll(2);
		claimed.get(0).deadLetter("broken");
		Instant oldestDue = this.queue.find("due-3").orElseThrow().dueAt();

		assertThat(this.queue.stats()).isEqualTo(new QueueStats(2, 1, 1, 1, oldestDue));
	}

	@Test
	void scheduleAllSchedulesManyTasksAndSkipsTakenIds() {
		this.queue.schedule("taken", new Order("old", 0), Duration.ofHours(1));
		List<NewTask<Order>> tasks = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			tasks.add(NewTask.of(new Order("n", i), Duration.ofMillis(i % 50)));
		}
		tasks.add(5_000, NewTask.of("taken", new Order("new", 1), Duration.ZERO));

		List<String> scheduled = this.queue.scheduleAll(tasks);

		assertThat(scheduled).hasSize(10_000).doesNotContain("taken").doesNotHaveDuplicates();
		assertThat(this.queue.find("taken").orElseThrow().payload()).isEqualTo(new Order("old", 0));
		QueueStats stats = this.queue.stats();
		assertThat(stats.scheduled() + stats.due()).isEqualTo(10_001);
		List<String> delivered = new ArrayList<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			this.queue.poll(1000).forEach((delivery) -> delivered.add(delivery.id()));
			return delivered.size() >= 10_000;
		});
		assertThat(delivered).containsExactlyInAnyOrderElementsOf(scheduled);
	}

	@Test
	void scheduleAllOfNothingDoesNothing() {
		assertThat(this.queue.scheduleAll(List.of())).isEmpty();
	}

}
