package dev.baton.test.contract;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * What every {@link DelayQueue} promises through its own API (see {@code docs/guarantees.md}):
 * extend it to check an implementation of {@link DelayQueues} of your own, as Baton checks its
 * Redis queues on a single server, a Cluster and Sentinel.
 *
 * <pre class="code">
 * class MyDelayQueuesContractTests extends DelayQueueContractTests {
 *
 *     &#64;Override
 *     protected DelayQueues createDelayQueues() {
 *         return new MyDelayQueues(sharedStore);
 *     }
 *
 * }
 * </pre>
 *
 * <p>Covered: an id is scheduled once while it waits or is in flight, {@code find}, {@code peek}
 * in due order across instances, {@code dueBetween} (by due time and then id, page by page, each
 * task once, across partitions where the implementation has them) and {@code countDueBetween},
 * {@code cancel} and {@code reschedule} of waiting tasks only, {@code stats} by state, generated ids, bad input refused before anything is stored, and
 * manual consumption ({@code poll} in due order, {@code ack}). Payloads are strings and a small
 * record, {@link Parcel}.
 *
 * <p>Not covered: delivery by the listener container, which {@link ListenerContainerContractTests}
 * checks where nothing fails (retries, dead letters, stopping); redelivery after a crash and
 * redrive stay in Baton's own Redis suites for now. No test waits for a task to fall due: tasks are
 * due now or in hours.
 *
 * <p>Queue names are unique per test (with the prefixes {@code orders-}, {@code invoices-} and
 * {@code emails-}), so tests need not empty the store.
 */
public abstract class DelayQueueContractTests {

	/** How far a due time may be from this JVM's clock: the store's clock may differ a little. */
	private static final Duration CLOCK_TOLERANCE = Duration.ofMinutes(1);

	private String run = "";

	/**
	 * A new instance of the application: queues over the same tasks as every other instance
	 * created in the same test. The suite calls it once or twice per test; close what it needs
	 * closing after each test yourself.
	 * @return the queues
	 */
	protected abstract DelayQueues createDelayQueues();

	@BeforeEach
	void newRun() {
		this.run = UUID.randomUUID().toString().substring(0, 8);
	}

	/** A queue name of this test only, starting with {@code base}. */
	private String queue(String base) {
		return base + "-" + this.run;
	}

	@Test
	void anIdIsScheduledOnceWhileItWaits() {
		DelayQueue<String> orders = createDelayQueues().get(queue("orders"), String.class);
		assertThat(orders.name()).isEqualTo(queue("orders"));
		assertThat(orders.schedule("order-1", "first", Duration.ofHours(1))).isTrue();
		Instant dueAt = orders.find("order-1").orElseThrow().dueAt();

		assertThat(orders.schedule("order-1", "second", Duration.ofHours(2))).isFalse();
		assertThat(orders.scheduleAt("order-1", "third", Instant.now().plus(Duration.ofHours(3)))).isFalse();
		assertThat(orders.scheduleAll(List.of(NewTask.of("order-2", "a", Duration.ofHours(1)),
				NewTask.of("order-1", "fourth", Duration.ZERO), NewTask.of("order-3", "b", Duration.ofHours(1)))))
			.containsExactly("order-2", "order-3");

		ScheduledTask<String> task = orders.find("order-1").orElseThrow();
		assertThat(task.payload()).as("nothing changed").isEqualTo("first");
		assertThat(task.dueAt()).isEqualTo(dueAt);
		assertThat(orders.stats().scheduled()).isEqualTo(3);
	}

	@Test
	void anotherInstanceSeesAndChangesTheSameTasks() {
		DelayQueue<String> producer = createDelayQueues().get(queue("invoices"), String.class);
		DelayQueue<String> other = createDelayQueues().get(queue("invoices"), String.class);
		producer.schedule("invoice-1", "ok", Duration.ofHours(1));

		assertThat(other.find("invoice-1")).isPresent();
		assertThat(other.schedule("invoice-1", "again", Duration.ZERO)).isFalse();
		assertThat(other.cancel("invoice-1")).isTrue();
		assertThat(producer.find("invoice-1")).isEmpty();
	}

	@Test
	void findShowsAWaitingTaskWithItsPayloadAndDueTime() {
		DelayQueue<Parcel> emails = createDelayQueues().get(queue("emails"), Parcel.class);
		Instant before = Instant.now();
		emails.schedule("welcome-42", new Parcel(42, "welcome"), Duration.ofHours(1));

		ScheduledTask<Parcel> task = emails.find("welcome-42").orElseThrow();
		assertThat(task.id()).isEqualTo("welcome-42");
		assertThat(task.payload()).isEqualTo(new Parcel(42, "welcome"));
		assertThat(task.dueAt()).isCloseTo(before.plus(Duration.ofHours(1)), within(CLOCK_TOLERANCE));
		assertThat(task.scheduledAt()).isCloseTo(before, within(CLOCK_TOLERANCE));
		assertThat(task.inFlight()).isFalse();
		assertThat(emails.find("unknown")).isEmpty();
	}

	@Test
	void peekListsWaitingTasksInDueOrder() {
		DelayQueue<String> first = createDelayQueues().get(queue("orders"), String.class);
		DelayQueue<String> second = createDelayQueues().get(queue("orders"), String.class);
		Instant now = Instant.now();
		first.schedule("c", "ok", Duration.ofHours(3));
		second.schedule("a", "ok", Duration.ofHours(1));
		first.scheduleAt("b", "ok", now.plus(Duration.ofHours(2)));
		second.schedule("now", "ok", Duration.ZERO);
		first.scheduleAt("past", "ok", now.minus(Duration.ofHours(1)));
		for (int i = 0; i < 10; i++) {
			second.schedule("later-" + i, "ok", Duration.ofHours(10 + i));
		}

		assertThat(first.peek(5)).extracting(ScheduledTask::id).containsExactly("past", "now", "a", "b", "c");
		assertThat(second.peek(15)).extracting(ScheduledTask::id).endsWith("later-8", "later-9");
		assertThat(second.peek(1000)).hasSize(15).allSatisfy((task) -> assertThat(task.inFlight()).isFalse());
	}

	@Test
	void dueBetweenListsWaitingTasksByDueTimeThenIdOncePageByPage() {
		DelayQueue<String> first = createDelayQueues().get(queue("orders"), String.class);
		DelayQueue<String> second = createDelayQueues().get(queue("orders"), String.class);
		Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
		List<String> expected = new ArrayList<>();
		// Scheduled in descending id order: tasks due at one instant are listed by id, not as scheduled.
		for (int i = 59; i >= 0; i--) {
			String id = String.format("task-%02d", i);
			((i % 2 == 0) ? first : second).scheduleAt(id, "payload " + i, base.plusMillis(i % 4));
		}
		for (int due = 0; due < 4; due++) {
			for (int i = due; i < 60; i += 4) {
				expected.add(String.format("task-%02d", i));
			}
		}
		first.scheduleAt("before", "ok", base.minusMillis(1));
		first.scheduleAt("at-the-end", "ok", base.plusMillis(4));
		second.scheduleAt("due", "ok", Instant.now().minus(Duration.ofMinutes(1)));
		assertThat(second.poll(1)).extracting(Delivery::id).containsExactly("due");

		for (int limit : new int[] { 1, 7, 60, 1000 }) {
			List<String> listed = new ArrayList<>();
			String token = null;
			do {
				TaskPage<String> page = first.dueBetween(base, base.plusMillis(4), limit, token);
				assertThat(page.tasks()).hasSizeLessThanOrEqualTo(limit);
				page.tasks().forEach((task) -> listed.add(task.id()));
				token = page.nextPageToken();
			}
			while (token != null);
			assertThat(listed).as("pages of %d", limit).containsExactlyElementsOf(expected);
		}
		TaskPage<String> page = second.dueBetween(base, base.plusMillis(1), 2, null);
		assertThat(page.tasks()).extracting(ScheduledTask::id).containsExactly("task-00", "task-04");
		assertThat(page.tasks().get(0).payload()).isEqualTo("payload 0");
		assertThat(page.tasks().get(0).dueAt()).isEqualTo(base);
		assertThat(page.tasks().get(0).inFlight()).isFalse();
		assertThat(first.dueBetween(base, base.plusMillis(1), 20, page.nextPageToken()).tasks())
			.as("a page token of one instance serves another")
			.hasSize(13);
		assertThat(first.countDueBetween(base, base.plusMillis(4))).isEqualTo(60);
		assertThat(second.countDueBetween(base.minusMillis(1), base.plusMillis(5))).isEqualTo(62);
		assertThat(second.countDueBetween(base, base)).isZero();
		assertThat(second.dueBetween(Instant.now().minus(Duration.ofHours(1)), Instant.now(), 10, null).tasks())
			.as("in flight: not waiting")
			.isEmpty();
	}

	@Test
	void dueBetweenRefusesBadInputWithWhatIsWrong() {
		DelayQueue<String> orders = createDelayQueues().get(queue("orders"), String.class);
		DelayQueue<String> invoices = createDelayQueues().get(queue("invoices"), String.class);
		Instant from = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
		Instant to = from.plus(Duration.ofHours(1));
		for (int i = 0; i < 3; i++) {
			orders.scheduleAt("order-" + i, "ok", from.plusSeconds(i));
		}
		String token = orders.dueBetween(from, to, 1, null).nextPageToken();
		assertThat(token).isNotNull();

		assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(to, from, 10, null));
		assertThatIllegalArgumentException().isThrownBy(() -> orders.countDueBetween(to, from));
		assertThatIllegalArgumentException().isThrownBy(() -> orders.dueBetween(from, to, 0, null));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> orders.dueBetween(from, to, DelayQueue.MAX_PAGE_SIZE + 1, null));
		assertThatIllegalArgumentException().as("a token of another queue")
			.isThrownBy(() -> invoices.dueBetween(from, to, 1, token));
		assertThatIllegalArgumentException().as("a token of another window")
			.isThrownBy(() -> orders.dueBetween(from, to.plusSeconds(1), 1, token));
		assertThatIllegalArgumentException().as("not a token")
			.isThrownBy(() -> orders.dueBetween(from, to, 1, "not a token"));
		assertThatIllegalArgumentException().as("a token cut short")
			.isThrownBy(() -> orders.dueBetween(from, to, 1, token.substring(0, token.length() - 2)));
		assertThat(orders.dueBetween(from, to, 10, token).tasks()).extracting(ScheduledTask::id)
			.containsExactly("order-1", "order-2");
	}

	@Test
	void aCancelledTaskIsGoneForGood() {
		DelayQueue<String> invoices = createDelayQueues().get(queue("invoices"), String.class);
		invoices.schedule("never", "ok", Duration.ofHours(1));
		invoices.schedule("due", "ok", Duration.ZERO);

		assertThat(invoices.cancel("never")).isTrue();
		assertThat(invoices.find("never")).isEmpty();
		assertThat(invoices.cancel("never")).isFalse();
		assertThat(invoices.cancel("unknown")).isFalse();
		assertThat(invoices.cancel("due")).as("a due task not yet claimed still waits").isTrue();
		assertThat(invoices.peek(10)).isEmpty();
		assertThat(invoices.stats().scheduled() + invoices.stats().due()).isZero();
		assertThat(invoices.schedule("never", "again", Duration.ofHours(1))).as("the id is free again").isTrue();
	}

	@Test
	void rescheduleMovesAWaitingTask() {
		DelayQueue<String> orders = createDelayQueues().get(queue("orders"), String.class);
		Instant before = Instant.now();
		orders.schedule("first", "ok", Duration.ofHours(1));
		orders.schedule("second", "ok", Duration.ofHours(2));

		assertThat(orders.reschedule("first", Duration.ofHours(3))).isTrue();
		assertThat(orders.find("first").orElseThrow().dueAt()).isCloseTo(before.plus(Duration.ofHours(3)),
				within(CLOCK_TOLERANCE));
		assertThat(orders.peek(2)).extracting(ScheduledTask::id).containsExactly("second", "first");
		assertThat(orders.reschedule("second", Duration.ZERO)).isTrue();
		assertThat(orders.stats().due()).isEqualTo(1);
		assertThat(orders.reschedule("unknown", Duration.ZERO)).isFalse();
	}

	@Test
	void statsCountTasksByState() {
		DelayQueue<String> emails = createDelayQueues().get(queue("emails"), String.class);
		assertThat(emails.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, null));
		Instant before = Instant.now();
		emails.schedule("due-1", "ok", Duration.ZERO);
		emails.scheduleAt("due-2", "ok", before.minus(Duration.ofMinutes(5)));
		for (int i = 0; i < 3; i++) {
			emails.schedule("later-" + i, "ok", Duration.ofHours(1));
		}

		QueueStats stats = emails.stats();
		assertThat(stats.scheduled()).isEqualTo(3);
		assertThat(stats.due()).isEqualTo(2);
		assertThat(stats.inFlight()).isZero();
		assertThat(stats.dead()).isZero();
		assertThat(stats.oldestDueAt()).isCloseTo(before.minus(Duration.ofMinutes(5)), within(CLOCK_TOLERANCE));

		List<Delivery<String>> claimed = emails.poll(1);
		assertThat(claimed).hasSize(1);
		assertThat(emails.stats().due()).isEqualTo(1);
		assertThat(emails.stats().inFlight()).isEqualTo(1);
		claimed.get(0).ack();
		assertThat(emails.stats().inFlight()).isZero();
	}

	@Test
	void aTaskScheduledWithoutAnIdGetsANewOne() {
		DelayQueue<String> orders = createDelayQueues().get(queue("orders"), String.class);
		String first = orders.schedule("ok", Duration.ofHours(1));
		String second = orders.schedule("ok", Duration.ofHours(1));

		assertThat(first).isNotBlank().isNotEqualTo(second);
		assertThat(orders.find(first)).isPresent();
		assertThat(orders.find(second)).isPresent();
	}

	@Test
	void badInputIsRefusedBeforeAnythingIsStored() {
		DelayQueue<String> invoices = createDelayQueues().get(queue("invoices"), String.class);
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.schedule("negative", "ok", Duration.ofMillis(-1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> invoices.schedule("too-late", "ok", DelayQueue.MAX_DELAY.plusDays(1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> invoices.scheduleAt("after-9999", "ok", DelayQueue.MAX_DUE_AT.plusSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.schedule(" ", "ok", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.scheduleAll(
				List.of(NewTask.of("fine", "ok", Duration.ZERO), NewTask.of("negative", "ok", Duration.ofMillis(-1)))));
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.peek(0));
		assertThatIllegalArgumentException().isThrownBy(() -> invoices.peek(DelayQueue.MAX_PEEK + 1));

		assertThat(invoices.find("fine")).isEmpty();
		assertThat(invoices.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, null));
	}

	@Test
	void aPolledTaskIsInFlightUntilAcknowledged() {
		DelayQueue<String> orders = createDelayQueues().get(queue("orders"), String.class);
		Instant now = Instant.now();
		orders.scheduleAt("second", "b", now.minus(Duration.ofMinutes(1)));
		orders.scheduleAt("first", "a", now.minus(Duration.ofMinutes(2)));
		orders.schedule("later", "c", Duration.ofHours(1));

		List<Delivery<String>> deliveries = orders.poll(10);
		assertThat(deliveries).extracting(Delivery::id).containsExactly("first", "second");
		Delivery<String> first = deliveries.get(0);
		assertThat(first.payload()).isEqualTo("a");
		assertThat(first.attempt()).isEqualTo(1);
		assertThat(orders.poll(10)).as("in flight, so not delivered twice").isEmpty();

		assertThat(orders.find("first").orElseThrow().inFlight()).isTrue();
		assertThat(orders.cancel("first")).as("a task being handled cannot be cancelled").isFalse();
		assertThat(orders.reschedule("first", Duration.ofHours(1))).isFalse();
		assertThat(orders.schedule("first", "again", Duration.ZERO)).as("in flight: still a duplicate").isFalse();

		assertThat(first.ack()).isTrue();
		assertThat(deliveries.get(1).ack()).isTrue();
		assertThat(orders.find("first")).isEmpty();
		assertThat(orders.stats().inFlight()).isZero();
		assertThat(orders.schedule("first", "again", Duration.ofHours(1))).as("done: the id is free").isTrue();
	}

	/**
	 * A payload with more than one field, to check that payloads come back as they went in.
	 * @param id an id
	 * @param kind a kind
	 */
	public record Parcel(long id, String kind) {

	}

}
