package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

import dev.baton.internal.DueWindow;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import dev.baton.support.ProxiedRedis;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link DelayQueue#dueBetween} and {@link DelayQueue#countDueBetween} on a queue of 8 partitions:
 * pages merged across the partitions by due time and id, ties (which Redis orders by scheduling
 * sequence) by id, each task once, and bad input refused.
 */
@RedisTest
class DueWindowTests {

	private static final Instant BASE = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);

	private RedisDelayQueues queues;

	@BeforeEach
	void createQueues(RedisConnectionFactory connectionFactory) {
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> name.startsWith("single") ? 1 : 8)
			.build();
	}

	@AfterEach
	void closeQueues() {
		this.queues.close();
	}

	@Test
	void pagesListEveryTaskOnceByDueTimeThenIdAcrossPartitions() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		List<Expected> expected = new ArrayList<>();
		// Scheduled in descending id order, so that Redis's order of equal due times (scheduling) is not the ids'.
		for (int i = 299; i >= 0; i--) {
			String id = "o-" + i;
			Instant dueAt = BASE.plusMillis(i % 7);
			assertThat(orders.scheduleAt(id, "order " + i, dueAt)).isTrue();
			expected.add(new Expected(dueAt, id));
		}
		orders.schedule("later", "x", Duration.ofDays(1));
		orders.schedule("now", "x", Duration.ZERO);
		expected.sort(Expected.ORDER);

		for (int limit : new int[] { 1, 17, 43, 300, 1000 }) {
			List<ScheduledTask<String>> listed = listAll(orders, BASE, BASE.plusMillis(7), limit);
			assertThat(listed).as("page size %d", limit).extracting(Expected::of).containsExactlyElementsOf(expected);
		}
		assertThat(listAll(orders, BASE, BASE.plusMillis(7), 17)).first().satisfies((task) -> {
			assertThat(task.payload()).isEqualTo("order 0");
			assertThat(task.inFlight()).isFalse();
		});
		assertThat(orders.countDueBetween(BASE, BASE.plusMillis(7))).isEqualTo(300);
		assertThat(orders.countDueBetween(BASE.minus(Duration.ofDays(1)), BASE.plus(Duration.ofDays(2)))).isEqualTo(302);
	}

	@Test
	void theWindowTakesItsStartAndLeavesOutItsEnd() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		for (int i = 0; i < 10; i++) {
			orders.scheduleAt("o-" + i, "x", BASE.plusMillis(i));
		}

		assertThat(listAll(orders, BASE.plusMillis(2), BASE.plusMillis(5), 2)).extracting(ScheduledTask::id)
			.containsExactly("o-2", "o-3", "o-4");
		assertThat(orders.countDueBetween(BASE.plusMillis(2), BASE.plusMillis(5))).isEqualTo(3);
		assertThat(listAll(orders, BASE.plusNanos(1_500_000), BASE.plusNanos(4_500_000), 10))
			.as("ends rounded up to whole milliseconds")
			.extracting(ScheduledTask::id)
			.containsExactly("o-2", "o-3", "o-4");
		assertThat(orders.countDueBetween(BASE.plusNanos(1_500_000), BASE.plusNanos(4_500_000))).isEqualTo(3);
		TaskPage<String> empty = orders.dueBetween(BASE.plusMillis(3), BASE.plusMillis(3), 10, null);
		assertThat(empty.tasks()).isEmpty();
		assertThat(empty.nextPageToken()).isNull();
		assertThat(orders.countDueBetween(BASE.plusMillis(3), BASE.plusMillis(3))).isZero();
	}

	@Test
	void aLastPageThatIsFullHasNoToken() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		for (int i = 0; i < 10; i++) {
			orders.scheduleAt("o-" + i, "x", BASE);
		}

		TaskPage<String> first = orders.dueBetween(BASE, BASE.plusSeconds(1), 5, null);
		assertThat(first.tasks()).extracting(ScheduledTask::id).containsExactly("o-0", "o-1", "o-2", "o-3", "o-4");
		TaskPage<String> second = orders.dueBetween(BASE, BASE.plusSeconds(1), 5, first.nextPageToken());
		assertThat(second.tasks()).extracting(ScheduledTask::id).containsExactly("o-5", "o-6", "o-7", "o-8", "o-9");
		assertThat(second.nextPageToken()).isNull();
	}

	@Test
	void moreTasksDueAtOneInstantThanAPageHoldAreListedByIdInEveryPartition() {
		DelayQueue<String> single = this.queues.get("single", String.class);
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		List<String> ids = new ArrayList<>();
		for (int i = 2499; i >= 0; i--) {
			String id = String.format("t-%04d", i);
			single.scheduleAt(id, "x", BASE);
			orders.scheduleAt(id, "x", BASE);
			ids.add(id);
		}
		ids.sort(Comparator.naturalOrder());

		assertThat(listAll(single, BASE, BASE.plusMillis(1), 1000)).extracting(ScheduledTask::id)
			.containsExactlyElementsOf(ids);
		assertThat(listAll(orders, BASE, BASE.plusMillis(1), 1000)).extracting(ScheduledTask::id)
			.containsExactlyElementsOf(ids);
		assertThat(listAll(orders, BASE, BASE.plusMillis(1), 333)).extracting(ScheduledTask::id)
			.containsExactlyElementsOf(ids);
		assertThat(orders.countDueBetween(BASE, BASE.plusMillis(1))).isEqualTo(2500);
	}

	@Test
	void idsOfEqualDueTimesAreInCodePointOrderWhateverTheServersLocale() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		List<String> ids = List.of("B", "a", "a-b", "ab", "é", "\uFF21", "\uD83D\uDE00", "Z");
		for (String id : ids) {
			orders.scheduleAt(id, "x", BASE);
		}

		assertThat(listAll(orders, BASE, BASE.plusMillis(1), 3)).extracting(ScheduledTask::id)
			.containsExactly("B", "Z", "a", "a-b", "ab", "é", "\uFF21", "\uD83D\uDE00");
	}

	@Test
	void tasksInFlightAndDeadLettersAreNotListedAndUnreadableOnesAreShownAsSuch() {
		DelayQueue<Order> orders = this.queues.get("orders", Order.class);
		this.queues.get("orders", String.class).scheduleAt("poison", "not an order", BASE);
		orders.scheduleAt("fine", new Order("fine", 1), BASE.plusMillis(1));
		Instant past = Instant.now().minus(Duration.ofMinutes(1)).truncatedTo(ChronoUnit.MILLIS);
		orders.scheduleAt("claimed", new Order("claimed", 2), past);
		orders.scheduleAt("dead", new Order("dead", 3), past.minusMillis(1));
		List<Delivery<Order>> deliveries = orders.poll(2);
		assertThat(deliveries).extracting(Delivery::id).containsExactlyInAnyOrder("claimed", "dead");
		deliveries.stream().filter((delivery) -> delivery.id().equals("dead")).forEach((delivery) -> delivery.deadLetter("test"));

		Instant from = past.minus(Duration.ofHours(1));
		assertThat(listAll(orders, from, BASE.plusSeconds(1), 10)).satisfiesExactly((poison) -> {
			assertThat(poison.id()).isEqualTo("poison");
			assertThat(poison.payload()).isNull();
			assertThat(poison.unreadablePayload()).isEqualTo("\"not an order\"");
		}, (fine) -> {
			assertThat(fine.payload()).isEqualTo(new Order("fine", 1));
			assertThat(fine.unreadablePayload()).isNull();
		});
		assertThat(orders.countDueBetween(from, BASE.plusSeconds(1))).isEqualTo(2);
	}

	@Test
	void aTaskMovedAfterThePageItWasListedOnIsNotListedAgainAndOthersStillOnce() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		for (int i = 0; i < 20; i++) {
			orders.scheduleAt(String.format("o-%02d", i), "x", BASE.plusMillis(i / 4));
		}

		TaskPage<String> first = orders.dueBetween(BASE, BASE.plusSeconds(1), 6, null);
		assertThat(orders.cancel("o-10")).isTrue();
		orders.scheduleAt("o-00b", "x", BASE);
		List<String> rest = new ArrayList<>();
		String token = first.nextPageToken();
		while (token != null) {
			TaskPage<String> page = orders.dueBetween(BASE, BASE.plusSeconds(1), 6, token);
			page.tasks().forEach((task) -> rest.add(task.id()));
			token = page.nextPageToken();
		}

		assertThat(first.tasks()).extracting(ScheduledTask::id).startsWith("o-00", "o-01");
		assertThat(rest).doesNotContain("o-00b", "o-10").doesNotHaveDuplicates().hasSize(13);
	}

	@Test
	void badInputIsRefusedWithWhatIsWrong() {
		DelayQueue<String> orders = this.queues.get("orders", String.class);
		DelayQueue<String> invoices = this.queues.get("invoices", String.class);
		for (int i = 0; i < 5; i++) {
			orders.scheduleAt("o-" + i, "x", BASE);
			invoices.scheduleAt("o-" + i, "x", BASE);
		}
		Instant to = BASE.plusSeconds(1);
		String token = orders.dueBetween(BASE, to, 2, null).nextPageToken();
		assertThat(token).isNotNull();

		assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(to, BASE, 10, null))
			.withMessageContaining("must not be after");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.countDueBetween(to, BASE))
			.withMessageContaining("must not be after");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(BASE, to, 0, null))
			.withMessageContaining("Page size");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> orders.dueBetween(BASE, to, DelayQueue.MAX_PAGE_SIZE + 1, null))
			.withMessageContaining("MAX_PAGE_SIZE");
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.dueBetween(BASE, to, 2, token))
			.withMessageContaining("for queue 'orders', not 'invoices'");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(BASE, to.plusMillis(1), 2, token))
			.withMessageContaining("is for the window");
		for (String corrupted : List.of("garbage!", "", token.substring(0, token.length() - 3), token + "AAAA",
				encode("baton-due-1\norders\n0\n10\n20\no-1"), encode("baton-due-1\norders\nx\n10\n5\no-1"))) {
			assertThatIllegalArgumentException().as(corrupted)
				.isThrownBy(() -> orders.dueBetween(BASE, to, 2, corrupted))
				.withMessageContaining("is not one that dueBetween returned");
		}
		assertThat(orders.dueBetween(BASE, to, 2, token).tasks()).extracting(ScheduledTask::id)
			.containsExactly("o-2", "o-3");
	}

	@Test
	void badInputIsRefusedBeforeRedisIsAsked() {
		try (ProxiedRedis redis = ProxiedRedis.start();
				RedisDelayQueues cutOff = RedisDelayQueues.builder(redis.throughProxy(), JsonMapper.builder().build())
					.partitions((name) -> 8)
					.commandTimeout(Duration.ofMillis(300))
					.build()) {
			DelayQueue<String> orders = cutOff.get("orders", String.class);
			redis.proxy().blackHole();

			assertThatExceptionOfType(QueueUnavailableException.class)
				.as("a call that asks Redis fails")
				.isThrownBy(() -> orders.countDueBetween(BASE, BASE.plusSeconds(1)));
			assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(BASE.plusSeconds(1), BASE, 10, null));
			assertThatIllegalArgumentException().isThrownBy(() -> orders.countDueBetween(BASE.plusSeconds(1), BASE));
			assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(BASE, BASE.plusSeconds(1), 0, null));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> orders.dueBetween(BASE, BASE.plusSeconds(1), 10, "garbage"));
		}
	}

	private static String encode(String text) {
		return Base64.getUrlEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	/** Every page of the window, checking that only the last has no token and none is larger than asked. */
	static <T> List<ScheduledTask<T>> listAll(DelayQueue<T> queue, Instant from, Instant to, int limit) {
		List<ScheduledTask<T>> all = new ArrayList<>();
		String token = null;
		do {
			TaskPage<T> page = queue.dueBetween(from, to, limit, token);
			assertThat(page.tasks()).hasSizeLessThanOrEqualTo(limit);
			if (page.nextPageToken() != null) {
				assertThat(page.tasks()).hasSize(limit);
			}
			all.addAll(page.tasks());
			token = page.nextPageToken();
		}
		while (token != null);
		return all;
	}

	private record Expected(Instant dueAt, String id) {

		static final Comparator<Expected> ORDER = Comparator.comparing(Expected::dueAt)
			.thenComparing(Expected::id, DueWindow::compareIds);

		static Expected of(ScheduledTask<?> task) {
			return new Expected(task.dueAt(), task.id());
		}

	}

}
