package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task scheduled into an idle queue costs about one claim however many instances wait for it:
 * the first claim tells the others on the wake channel that it took the task, and a task due
 * later wakes nobody until it is due.
 */
@RedisTest
class IdleWakeCostTests {

	private static final int INSTANCES = 8;

	private static final ListenerSettings SETTINGS = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(),
			Duration.ofSeconds(30), 128, 1_000, Duration.ofMillis(100), Duration.ofSeconds(60), Duration.ofSeconds(2),
			ListenerSettings.DEFAULT_MAX_DELIVERIES);

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void aTaskDueNowCostsAboutOneClaimWhateverTheNumberOfIdleInstances(RedisConnectionFactory connectionFactory)
			throws InterruptedException {
		DelayQueue<String> queue = startInstances(connectionFactory);
		// Each instance learns of the others from the claims it sees them make.
		runOneByOne(queue, "warm-up-", 40);

		long scriptsBefore = scriptCalls(connectionFactory);
		int tasks = 30;
		runOneByOne(queue, "t-", tasks);
		long claims = scriptCalls(connectionFactory) - scriptsBefore - 2L * tasks;

		assertThat(this.runs).allSatisfy((id, count) -> assertThat(count.get()).as(id).isOne());
		// One claim per waiting instance and task without the claim signals: eight per task.
		assertThat((double) claims / tasks).as("claims per task").isLessThan(2.5);
	}

	@Test
	void aTaskDueLaterWakesNobodyUntilItIsDue(RedisConnectionFactory connectionFactory) throws InterruptedException {
		DelayQueue<String> queue = startInstances(connectionFactory);
		runOneByOne(queue, "warm-up-", 40);

		int tasks = 6;
		long claimsBeforeDue = 0;
		long claimsWhenDue = 0;
		for (int i = 0; i < tasks; i++) {
			String id = "later-" + i;
			long before = scriptCalls(connectionFactory);
			queue.schedule(id, id, Duration.ofSeconds(1));
			// Well before the instances' timers (due time less claim-ahead), even on a loaded machine.
			Thread.sleep(300);
			long scheduled = scriptCalls(connectionFactory);
			awaitRunThenSettle(id);
			claimsBeforeDue += scheduled - before - 1;
			claimsWhenDue += scriptCalls(connectionFactory) - scheduled - 1;
		}

		assertThat(this.runs).allSatisfy((id, count) -> assertThat(count.get()).as(id).isOne());
		// Without the due time in the wake-up every instance claims when a task is scheduled.
		assertThat(claimsBeforeDue).as("claims before the tasks were due").isZero();
		// Without the pacing every instance claims when its timer fires: eight per task. About 1.5 on
		// an idle machine; load delays the first claim's signal, so more instances claim before it.
		assertThat((double) claimsWhenDue / tasks).as("claims per task when due").isLessThan(INSTANCES / 2.0);
	}

	private DelayQueue<String> startInstances(RedisConnectionFactory connectionFactory) {
		for (int i = 0; i < INSTANCES; i++) {
			ListenerContext context = new ListenerContext(connectionFactory, (queue) -> SETTINGS, new Handler(this.runs));
			this.contexts.add(context);
			context.start();
		}
		return this.contexts.get(0).queues.get("idle", String.class);
	}

	/** Schedules tasks one at a time, each when the one before ran and the instances are idle again. */
	private void runOneByOne(DelayQueue<String> queue, String prefix, int tasks)
			throws InterruptedException {
		for (int i = 0; i < tasks; i++) {
			String id = prefix + i;
			queue.schedule(id, id, Duration.ZERO);
			awaitRunThenSettle(id);
		}
	}

	private void awaitRunThenSettle(String id) throws InterruptedException {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.runs.containsKey(id));
		// The instances that woke for nothing settle back into their wait.
		Thread.sleep(50);
	}

	private static long scriptCalls(RedisConnectionFactory connectionFactory) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			long calls = 0;
			for (Map.Entry<Object, Object> entry : connection.serverCommands().info("commandstats").entrySet()) {
				String key = entry.getKey().toString();
				if (key.equals("cmdstat_evalsha") || key.equals("cmdstat_eval")) {
					calls += Long.parseLong(entry.getValue().toString().replaceAll("^calls=(\\d+),.*$", "$1"));
				}
			}
			return calls;
		}
	}

	static class Handler {

		private final Map<String, AtomicInteger> runs;

		Handler(Map<String, AtomicInteger> runs) {
			this.runs = runs;
		}

		@DelayedTask(queue = "idle", concurrency = "2")
		void handle(String id) {
			this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		}

	}

}
