package dev.baton.queue.listener;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several instances, each idle-polling only once a minute, so that only wake-ups and timers make
 * a task run: in many rounds of tasks due now, in bursts, due a little later, scheduled while
 * another instance's claim is under way, and on a queue of several partitions, every task runs
 * once and soon after it falls due. A claim {@link ClaimPacer} leaves to another instance that did
 * not take the task would leave it to the idle poll, a minute later.
 */
@RedisTest
class PacedWakeUpsTests {

	private static final int INSTANCES = 5;

	private static final int ROUNDS = 96;

	/**
	 * How late a task may run after it falls due, besides the pauses of this JVM (a loaded machine
	 * stops it for a second now and then); a task left to the idle poll runs a minute late.
	 */
	private static final Duration LATENESS = Duration.ofSeconds(1);

	/** A gap in the heartbeat longer than this is a pause of the JVM (or of its threads). */
	private static final long PAUSE_NANOS = Duration.ofMillis(50).toNanos();

	private static final String SINGLE = "paced";

	private static final String PARTITIONED = "paced-parts";

	private static final String SMALL = "paced-small";

	private static final ListenerSettings SETTINGS = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(),
			Duration.ofSeconds(30), 128, 1_000, Duration.ofMillis(100), Duration.ofSeconds(60), Duration.ofSeconds(2),
			ListenerSettings.DEFAULT_MAX_DELIVERIES);

	/** Claims of two tasks and no prefetch: claims that leave tasks due. */
	private static final ListenerSettings SMALL_SETTINGS = new ListenerSettings(3, ListenerSettings.DEFAULTS.backoff(),
			Duration.ofSeconds(30), 2, 0, Duration.ofMillis(100), Duration.ofSeconds(60), Duration.ofSeconds(2),
			ListenerSettings.DEFAULT_MAX_DELIVERIES);

	private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

	private final List<GenericApplicationContext> instances = new ArrayList<>();

	/** Runs by task key (queue:id). */
	private final Map<String, Queue<Run>> runs = new ConcurrentHashMap<>();

	/** Every wake-channel message and run, in the order seen. */
	private final Queue<Event> timeline = new ConcurrentLinkedQueue<>();

	private final long startNanos = System.nanoTime();

	/** The pauses the heartbeat saw: when each ended and how long it lasted. */
	private final Queue<Pause> pauses = new ConcurrentLinkedQueue<>();

	private volatile boolean beating = true;

	@AfterEach
	void close() throws Exception {
		this.beating = false;
		for (GenericApplicationContext instance : this.instances) {
			instance.close();
		}
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void everyTaskRunsOnceSoonAfterItFallsDueThoughNoInstanceIdlePollsWithinTheTest(
			RedisConnectionFactory connectionFactory) throws Exception {
		startHeartbeat();
		listenToWakeChannels(connectionFactory);
		for (int i = 0; i < INSTANCES; i++) {
			startInstance(connectionFactory, "i" + i);
		}
		RedisDelayQueues producer = queues(connectionFactory);
		DelayQueue<String> single = producer.get(SINGLE, String.class);
		DelayQueue<String> partitioned = producer.get(PARTITIONED, String.class);
		DelayQueue<String> small = producer.get(SMALL, String.class);
		long seed = System.nanoTime();
		Random random = new Random(seed);
		List<Expected> expected = new ArrayList<>();
		// Every instance learns of the others from the claims it sees them make.
		for (int i = 0; i < 10; i++) {
			schedule(single, "warm-up-" + i, Duration.ZERO, expected);
			schedule(partitioned, "warm-up-" + i, Duration.ZERO, expected);
			awaitRun(expected, Duration.ofSeconds(3));
			Thread.sleep(30);
		}

		for (int round = 0; round < ROUNDS; round++) {
			String prefix = "r" + round + "-";
			List<Expected> batch = new ArrayList<>();
			switch (round % 8) {
				case 0 -> schedule(single, prefix + "now", Duration.ZERO, batch);
				case 1 -> {
					for (int i = 0; i < 12; i++) {
						schedule(single, prefix + "burst-" + i, Duration.ZERO, batch);
					}
				}
				case 2 -> {
					for (int i = 0; i < 4; i++) {
						DelayQueue<String> queue = (i % 2 == 0) ? single : partitioned;
						schedule(queue, prefix + "later-" + i, Duration.ofMillis(50 + random.nextInt(451)), batch);
					}
				}
				case 3 -> {
					// A task scheduled while the claims of the burst are under way, and one due soon after.
					DelayQueue<String> queue = random.nextBoolean() ? single : small;
					List<NewTask<String>> burst = new ArrayList<>();
					for (int i = 0; i < 20; i++) {
						burst.add(NewTask.of(prefix + "burst-" + i, "x", Duration.ZERO));
					}
					scheduleAll(queue, burst, batch);
					spin(random.nextInt(4_000));
					schedule(queue, prefix + "in-flight", Duration.ZERO, batch);
					spin(random.nextInt(4_000));
					schedule(queue, prefix + "in-flight-later", Duration.ofMillis(random.nextInt(40)), batch);
				}
				case 4 -> {
					for (int i = 0; i < 8; i++) {
						schedule(partitioned, prefix + "burst-" + i, Duration.ZERO, batch);
					}
					spin(random.nextInt(3_000));
					schedule(partitioned, prefix + "in-flight", Duration.ZERO, batch);
					schedule(partitioned, prefix + "later", Duration.ofMillis(50 + random.nextInt(300)), batch);
				}
				case 5 -> {
					for (int i = 0; i < 6; i++) {
						schedule(small, prefix + "small-" + i, Duration.ZERO, batch);
					}
					schedule(small, prefix + "small-later", Duration.ofMillis(50 + random.nextInt(200)), batch);
				}
				case 6 -> {
					// Tasks due now, each followed by one due a few milliseconds later, within the random
					// wait of the instances woken for the one due now.
					DelayQueue<String> queue = random.nextBoolean() ? single : partitioned;
					for (int i = 0; i < 6; i++) {
						schedule(queue, prefix + "now-" + i, Duration.ZERO, batch);
						spin(300 + random.nextInt(3_000));
						schedule(queue, prefix + "soon-" + i, Duration.ofMillis(1 + random.nextInt(12)), batch);
						spin(random.nextInt(5_000));
					}
				}
				default -> {
					// Tasks due now, a few milliseconds apart, on every queue, and some due a little later.
					for (int i = 0; i < 8; i++) {
						DelayQueue<String> queue = (i % 3 == 0) ? single : (i % 3 == 1) ? partitioned : small;
						Duration delay = (i % 4 == 3) ? Duration.ofMillis(50 + random.nextInt(200)) : Duration.ZERO;
						schedule(queue, prefix + "mixed-" + i, delay, batch);
						spin(random.nextInt(15_000));
					}
				}
			}
			expected.addAll(batch);
			// Until the round ran, or its last task is well overdue; then idle for a while, or not.
			awaitRun(batch, LATENESS.plusMillis(500));
			int pause = random.nextInt(4);
			if (pause > 0) {
				Thread.sleep(random.nextInt(120));
			}
		}
		awaitRun(expected, LATENESS.plusMillis(500));
		Thread.sleep(200);

		List<String> failures = new ArrayList<>();
		int excused = 0;
		for (Expected task : expected) {
			List<Run> ran = new ArrayList<>(this.runs.getOrDefault(task.key(), new ConcurrentLinkedQueue<>()));
			Duration late = ran.isEmpty() ? Duration.ZERO : Duration.between(task.due(), ran.get(0).at());
			Duration paused = ran.isEmpty() ? Duration.ZERO : paused(task.due(), ran.get(0).at());
			if (ran.size() != 1 || late.compareTo(LATENESS.plus(paused)) > 0) {
				failures.add(describe(task, ran));
			}
			else if (late.compareTo(LATENESS) > 0) {
				excused++;
			}
		}
		long left = claimsLeftToOthers();
		Duration longestPause = this.pauses.stream()
			.map(Pause::length)
			.max(Comparator.naturalOrder())
			.orElse(Duration.ZERO);
		System.out.println("PacedWakeUpsTests: seed " + seed + ", " + expected.size() + " tasks, " + failures.size()
				+ " failed, " + excused + " later than " + LATENESS + " by JVM pauses only, " + this.pauses.size()
				+ " pauses (longest " + longestPause.toMillis() + " ms), " + left + " claims left to other instances");
		assertThat(left).as("claims the pacers left to other instances").isPositive();
		assertThat(failures).as("tasks that did not run exactly once within " + LATENESS + " (seed " + seed + ")")
			.isEmpty();
	}

	/** Notes when this JVM's threads do not run for a while: the machine is loaded. */
	private void startHeartbeat() {
		Thread heartbeat = new Thread(() -> {
			long last = System.nanoTime();
			while (this.beating) {
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
				long now = System.nanoTime();
				if (now - last > PAUSE_NANOS) {
					Pause pause = new Pause(Instant.now(), Duration.ofNanos(now - last));
					this.pauses.add(pause);
					event("JVM paused for " + pause.length().toMillis() + " ms");
				}
				last = now;
			}
		}, "paced-wake-ups-heartbeat");
		heartbeat.setDaemon(true);
		heartbeat.start();
	}

	/** How long the JVM was paused between the two times. */
	private Duration paused(Instant from, Instant to) {
		Duration paused = Duration.ZERO;
		for (Pause pause : this.pauses) {
			Instant start = pause.end().minus(pause.length());
			Instant overlapStart = start.isAfter(from) ? start : from;
			Instant overlapEnd = pause.end().isBefore(to) ? pause.end() : to;
			if (overlapEnd.isAfter(overlapStart)) {
				paused = paused.plus(Duration.between(overlapStart, overlapEnd));
			}
		}
		return paused;
	}

	private void startInstance(RedisConnectionFactory connectionFactory, String name) {
		RedisDelayQueues queues = queues(connectionFactory);
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		context.registerBean(DelayedTaskListenerRegistry.class, () -> DelayedTaskListenerRegistry.builder(queues)
			.settings((queue) -> queue.equals(SMALL) ? SMALL_SETTINGS : SETTINGS)
			.build());
		Handler handler = new Handler(name, this);
		context.registerBean(Handler.class, () -> handler);
		context.refresh();
		this.instances.add(context);
	}

	private RedisDelayQueues queues(RedisConnectionFactory connectionFactory) {
		RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.partitions((name) -> name.equals(PARTITIONED) ? 4 : 1)
			.build();
		this.closeables.add(queues);
		return queues;
	}

	/** Records every message of the wake channels, with when it came. */
	private void listenToWakeChannels(RedisConnectionFactory connectionFactory) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		container.setTaskExecutor(Runnable::run);
		container.addMessageListener((message, pattern) -> event(
				shortChannel(new String(message.getChannel(), StandardCharsets.UTF_8)) + " "
						+ new String(message.getBody(), StandardCharsets.UTF_8)),
				new PatternTopic("*wake"));
		container.afterPropertiesSet();
		container.start();
		this.closeables.add(container::destroy);
	}

	private static String shortChannel(String channel) {
		int brace = channel.indexOf('{');
		return (brace >= 0) ? channel.substring(brace) : channel;
	}

	private void schedule(DelayQueue<String> queue, String id, Duration delay, List<Expected> expected) {
		Instant before = Instant.now();
		queue.schedule(id, "x", delay);
		expected.add(new Expected(queue.name() + ":" + id, before.plus(delay)));
		event("scheduled " + queue.name() + ":" + id + " in " + delay.toMillis() + " ms");
	}

	private void scheduleAll(DelayQueue<String> queue, List<NewTask<String>> tasks, List<Expected> expected) {
		Instant before = Instant.now();
		queue.scheduleAll(tasks);
		for (NewTask<String> task : tasks) {
			expected.add(new Expected(queue.name() + ":" + task.id(), before));
		}
		event("scheduled " + tasks.size() + " tasks on " + queue.name() + " due now");
	}

	private void awaitRun(List<Expected> tasks, Duration overdue) throws InterruptedException {
		Instant lastDue = tasks.stream().map(Expected::due).max(Comparator.naturalOrder()).orElse(Instant.now());
		Instant deadline = lastDue.plus(overdue);
		while (Instant.now().isBefore(deadline) && !tasks.stream().allMatch((task) -> this.runs.containsKey(task.key()))) {
			Thread.sleep(2);
		}
	}

	/** Waits about that many microseconds without sleeping. */
	private static void spin(int micros) {
		long until = System.nanoTime() + micros * 1_000L;
		while (System.nanoTime() < until) {
			Thread.onSpinWait();
		}
	}

	private void event(String what) {
		this.timeline.add(new Event(System.nanoTime(), Instant.now(), what));
	}

	void ran(String instance, TaskContext task) {
		Run run = new Run(instance, Instant.now(), task.dueAt(), task.attempt());
		this.runs.computeIfAbsent(task.queue() + ":" + task.id(), (key) -> new ConcurrentLinkedQueue<>()).add(run);
		event("ran " + task.queue() + ":" + task.id() + " on " + instance + " (due " + task.dueAt() + ", attempt "
				+ task.attempt() + ")");
	}

	private String describe(Expected task, List<Run> ran) {
		StringBuilder description = new StringBuilder();
		description.append(task.key())
			.append(" due ")
			.append(task.due())
			.append(": ")
			.append(ran.isEmpty() ? "never ran" : ran.size() + " run(s) " + ran)
			.append("\n  timeline from 1 s before its due time to 2 s after:");
		Instant from = task.due().minusSeconds(1);
		Instant to = task.due().plusSeconds(2);
		for (Event event : this.timeline) {
			if (!event.at().isBefore(from) && !event.at().isAfter(to)) {
				description.append("\n    ")
					.append(String.format("%9.3f ms ", (event.nanos() - this.startNanos) / 1e6))
					.append(event.at())
					.append(' ')
					.append(event.what());
			}
		}
		return description.toString();
	}

	private long claimsLeftToOthers() throws ReflectiveOperationException {
		Field pacer = DelayedTaskListenerContainer.class.getDeclaredField("pacer");
		pacer.setAccessible(true);
		long left = 0;
		for (GenericApplicationContext instance : this.instances) {
			for (DelayedTaskContainer container : instance.getBean(DelayedTaskListenerRegistry.class).getContainers()) {
				left += ((ClaimPacer) pacer.get(container)).claimsLeftToOthers();
			}
		}
		return left;
	}

	private record Expected(String key, Instant due) {

	}

	private record Run(String instance, Instant at, Instant dueAt, int attempt) {

	}

	private record Event(long nanos, Instant at, String what) {

	}

	private record Pause(Instant end, Duration length) {

	}

	static class Handler {

		private final String instance;

		private final PacedWakeUpsTests test;

		Handler(String instance, PacedWakeUpsTests test) {
			this.instance = instance;
			this.test = test;
		}

		@DelayedTask(queue = SINGLE, concurrency = "4")
		void single(String payload, TaskContext task) {
			this.test.ran(this.instance, task);
		}

		@DelayedTask(queue = PARTITIONED, concurrency = "4")
		void partitioned(String payload, TaskContext task) {
			this.test.ran(this.instance, task);
		}

		@DelayedTask(queue = SMALL, concurrency = "2")
		void small(String payload, TaskContext task) {
			this.test.ran(this.instance, task);
		}

	}

}
