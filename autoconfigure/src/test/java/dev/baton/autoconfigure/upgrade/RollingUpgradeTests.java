package dev.baton.autoconfigure.upgrade;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.TaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade from storage format 0 to format 1 (docs/upgrading.md), as two instances of an
 * application on one Redis go through it: both write format 0; one is stopped and started again
 * writing format 1; then the other. Meanwhile a producer schedules tasks through whichever
 * instance is up, handlers fail some first attempts (retried), and each instance takes one lock
 * in a loop around an unfenced counter. Nothing is lost, nothing runs twice, no call fails, the
 * lock never has two holders, and while an instance writes format 0 nothing of format 1 is
 * stored (what an instance of a build that reads only format 0 needs).
 * <p>Both builds are this one, told which format to write: the test cannot show what an older
 * build does with format 1, only that nothing of it is written while one may run.
 */
abstract class RollingUpgradeTests {

	private static final String QUEUE = "upgrade";

	private static final Map<String, List<Integer>> runs = new ConcurrentHashMap<>();

	private final List<Instance> instances = new CopyOnWriteArrayList<>();

	private final Set<String> accepted = ConcurrentHashMap.newKeySet();

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private final AtomicInteger holders = new AtomicInteger();

	private final AtomicInteger mostHolders = new AtomicInteger();

	private final AtomicInteger counter = new AtomicInteger();

	/** The properties that point an instance at the Redis deployment under test. */
	abstract List<String> redisProperties();

	abstract StringRedisTemplate redis();

	@AfterEach
	void stopInstances() {
		this.instances.forEach(Instance::stop);
		runs.clear();
	}

	@Test
	void tasksAndLocksGoOnThroughARollingUpgradeOfTheStorageFormat() throws InterruptedException {
		AtomicBoolean producing = new AtomicBoolean(true);
		this.instances.add(start("alpha", 0));
		this.instances.add(start("beta", 0));
		Thread producer = new Thread(() -> produce(producing), "upgrade-producer");
		producer.start();

		Thread.sleep(1000);
		assertNothingOfFormatOneIsStored();
		roll(0, start("alpha-upgraded", 1));
		Thread.sleep(1000);
		roll(1, start("beta-upgraded", 1));
		Thread.sleep(1000);
		producing.set(false);
		producer.join();

		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(this.accepted).filteredOn((id) -> !succeeded().contains(id)).isEmpty());
		assertThat(this.failures).isEmpty();
		assertThat(this.accepted).hasSizeGreaterThan(100);
		assertThat(runs.entrySet().stream().filter((run) -> run.getValue().stream().filter((ok) -> ok == 1).count() > 1))
			.as("tasks that ran to success twice").isEmpty();
		assertThat(runs.values().stream().flatMap(List::stream).filter((ok) -> ok == 0)).as("failed first attempts")
			.isNotEmpty();
		assertThat(this.mostHolders).as("holders of the lock at once").hasValue(1);
		assertThat(this.counter.get()).isPositive();
		assertThat(redis().keys("baton:q:{" + QUEUE + "}:*")).doesNotContain("baton:q:{" + QUEUE + "}:due",
				"baton:q:{" + QUEUE + "}:tasks", "baton:q:{" + QUEUE + "}:meta", "baton:q:{" + QUEUE + "}:inflight");
	}

	private void assertNothingOfFormatOneIsStored() {
		Map<Object, Object> tasks = redis().opsForHash().entries("baton:q:{" + QUEUE + "}:tasks");
		Set<Object> metas = redis().opsForHash().keys("baton:q:{" + QUEUE + "}:meta");
		assertThat(tasks.values()).as("values of format 1").noneMatch((value) -> ((String) value).charAt(0) == 1);
		// Read one after the other: a task without meta now was acknowledged in between.
		assertThat(tasks.keySet()).filteredOn((id) -> !metas.contains(id))
			.noneMatch((id) -> redis().opsForHash().hasKey("baton:q:{" + QUEUE + "}:tasks", id));
	}

	/** Stops instance {@code index} gracefully, the way a deployment replaces a pod, and puts its successor in its place. */
	private void roll(int index, Instance successor) {
		Instance old = this.instances.set(index, successor);
		old.stop();
	}

	private void produce(AtomicBoolean producing) {
		int n = 0;
		while (producing.get()) {
			Instance instance = this.instances.get(n % 2);
			String id = "task-" + n++;
			try {
				DelayQueue<String> queue = instance.context.getBean(DelayQueues.class).get(QUEUE, String.class);
				if (instance.running.get() && queue.schedule(id, id,
						Duration.ofMillis(ThreadLocalRandom.current().nextInt(300)))) {
					this.accepted.add(id);
				}
			}
			catch (RuntimeException ex) {
				if (instance.running.get()) {
					this.failures.add(ex);
				}
			}
			try {
				Thread.sleep(2);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private Set<String> succeeded() {
		return runs.entrySet()
			.stream()
			.filter((run) -> run.getValue().contains(1))
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
	}

	private Instance start(String name, int storageFormat) {
		List<String> properties = new ArrayList<>(redisProperties());
		properties.add("baton.queue.storage-format=" + storageFormat);
		properties.add("baton.queue.backoff.initial=50ms");
		properties.add("spring.application.name=" + name);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		Instance instance = new Instance(context);
		instance.locker.start();
		return instance;
	}

	/** One instance of the application, and its thread that takes the lock. */
	private final class Instance {

		final ConfigurableApplicationContext context;

		final AtomicBoolean running = new AtomicBoolean(true);

		final Thread locker;

		Instance(ConfigurableApplicationContext context) {
			this.context = context;
			this.locker = new Thread(this::lockInALoop, "upgrade-locker");
		}

		private void lockInALoop() {
			LockManager locks = this.context.getBean(LockManager.class);
			while (this.running.get()) {
				try {
					Optional<LockLease> lease = locks.tryAcquire("upgrade-counter", Duration.ofMillis(200));
					if (lease.isPresent()) {
						int now = RollingUpgradeTests.this.holders.incrementAndGet();
						RollingUpgradeTests.this.mostHolders.accumulateAndGet(now, Math::max);
						RollingUpgradeTests.this.counter.incrementAndGet();
						Thread.sleep(2);
						RollingUpgradeTests.this.holders.decrementAndGet();
						lease.get().release();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				catch (RuntimeException ex) {
					RollingUpgradeTests.this.failures.add(ex);
				}
			}
		}

		/** Stops taking the lock and scheduling through it, then closes the context (which hands its tasks back). */
		void stop() {
			if (this.running.getAndSet(false)) {
				try {
					this.locker.join();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				this.context.close();
			}
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Handler.class)
	static class App {

	}

	static class Handler {

		/** Fails the first attempt of every fifth task, and takes a little time, so that work is in flight when an instance stops. */
		@DelayedTask(queue = QUEUE)
		public void handle(String id, TaskContext context) throws InterruptedException {
			Thread.sleep(5);
			boolean fails = context.attempt() == 1 && id.hashCode() % 5 == 0;
			runs.computeIfAbsent(id, (key) -> new CopyOnWriteArrayList<>()).add(fails ? 0 : 1);
			if (fails) {
				throw new IllegalStateException("first attempt of " + id + " fails");
			}
		}

	}

}
