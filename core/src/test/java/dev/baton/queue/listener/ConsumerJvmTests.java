package dev.baton.queue.listener;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Consumers in separate JVMs on one queue: no task handled twice in a healthy run, none lost when
 * a consumer is killed in the middle of handling, and a task that crashes every consumer is
 * dead-lettered once it was delivered more than max-deliveries times.
 */
@RedisTest
class ConsumerJvmTests {

	private final List<Process> children = new ArrayList<>();

	private final List<ListenerContext> contexts = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.children.forEach(Process::destroyForcibly);
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void handlesEveryTaskExactlyOnceAcrossTwoJvms(RedisServer server, RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) throws IOException {
		startChild(server, "child", 2);
		startHere(connectionFactory, redis, "here", 2);
		await().atMost(Duration.ofSeconds(30)).until(() -> redis.hasKey("test:ready:child"));
		DelayQueue<String> queue = this.contexts.get(0).queues.get("jobs", String.class);

		queue.scheduleAll(tasks(500));

		await().atMost(Duration.ofSeconds(60)).until(() -> redis.opsForList().size(JobHandler.HANDLED) >= 500
				&& queue.stats().inFlight() == 0 && queue.stats().due() == 0);
		List<String> handled = redis.opsForList().range(JobHandler.HANDLED, 0, -1);
		assertThat(handled).hasSize(500);
		assertThat(new HashSet<>(handled)).hasSize(500);
		assertThat(Long.parseLong(redis.opsForValue().get("test:by:child"))).isPositive();
		assertThat(Long.parseLong(redis.opsForValue().get("test:by:here"))).isPositive();
	}

	@Test
	void handlesEveryTaskAfterConsumerJvmIsKilled(RedisServer server, RedisConnectionFactory connectionFactory,
			StringRedisTemplate redis) throws IOException {
		Process child = startChild(server, "doomed", 200);
		await().atMost(Duration.ofSeconds(30)).until(() -> redis.hasKey("test:ready:doomed"));
		ListenerContext producer = new ListenerContext(connectionFactory, (queue) -> ListenerSettings.DEFAULTS);
		this.contexts.add(producer);
		DelayQueue<String> queue = producer.queues.get("jobs", String.class);
		queue.scheduleAll(tasks(60));
		await().atMost(Duration.ofSeconds(30)).until(() -> redis.opsForList().size(JobHandler.HANDLED) >= 8);

		child.destroyForcibly();
		await().atMost(Duration.ofSeconds(10)).until(() -> !child.isAlive());
		assertThat(queue.stats().inFlight()).isPositive();
		startHere(connectionFactory, redis, "survivor", 10);

		// the killed consumer's tasks come back after its 2 s visibility timeout
		await().atMost(Duration.ofSeconds(60))
			.until(() -> new HashSet<>(redis.opsForList().range(JobHandler.HANDLED, 0, -1)).size() == 60);
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().inFlight() == 0);
		assertThat(queue.stats().dead()).isZero();
	}

	@Test
	void aTaskThatCrashesItsWorkerIsDeadLetteredOnceDeliveredMoreThanMaxDeliveries(RedisServer server,
			RedisConnectionFactory connectionFactory) throws IOException {
		ListenerContext producer = new ListenerContext(connectionFactory, (queue) -> ListenerSettings.DEFAULTS);
		this.contexts.add(producer);
		DelayQueue<String> queue = producer.queues.get("jobs", String.class);
		queue.schedule("poison", JobHandler.HALT, Duration.ZERO);

		// Each consumer halts on the task; it comes back to the next after the 2 s visibility timeout
		for (int crash = 1; crash <= 5 && queue.deadLetters(1).isEmpty(); crash++) {
			Process child = startChild(server, "crash-" + crash, 0, "2");
			await().atMost(Duration.ofSeconds(60)).until(() -> !child.isAlive() || !queue.deadLetters(1).isEmpty());
		}

		assertThat(queue.deadLetters(1)).singleElement().satisfies((parked) -> {
			assertThat(parked.id()).isEqualTo("poison");
			assertThat(parked.reason()).contains("delivered 3 times, more than max-deliveries (2)");
		});
		assertThat(queue.find("poison")).isEmpty();
	}

	private static List<NewTask<String>> tasks(int count) {
		List<NewTask<String>> tasks = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			tasks.add(NewTask.of("job-" + i, "payload-" + i, Duration.ZERO));
		}
		return tasks;
	}

	private Process startChild(RedisServer server, String name, long handleMillis, String... more)
			throws IOException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
				ConsumerMain.class.getName(), server.url(), name, Long.toString(handleMillis)));
		command.addAll(List.of(more));
		Process process = new ProcessBuilder(command)
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		this.children.add(process);
		return process;
	}

	private void startHere(RedisConnectionFactory connectionFactory, StringRedisTemplate redis, String name,
			long handleMillis) {
		ListenerContext context = new ListenerContext(connectionFactory, (queue) -> ListenerSettings.DEFAULTS,
				new JobHandler(redis, name, Duration.ofMillis(handleMillis)));
		this.contexts.add(context);
		context.start();
	}

}
