package dev.baton.queue.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.support.ChildJvm;
import dev.baton.test.RedisServer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueConsumerTests extends OrderQueueTests {

	@Test
	void concurrentConsumersHandleEachTaskExactlyOnceInAHealthyRun() throws Exception {
		List<NewTask<Order>> tasks = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			tasks.add(NewTask.of("t-" + i, new Order("t-" + i, i), Duration.ofMillis(i % 100)));
		}
		this.queue.scheduleAll(tasks);
		Map<String, Integer> handled = new ConcurrentHashMap<>();
		ExecutorService consumers = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int c = 0; c < 4; c++) {
				running.add(consumers.submit(() -> {
					while (handled.size() < tasks.size()) {
						for (Delivery<Order> delivery : this.queue.poll(20)) {
							handled.merge(delivery.id(), 1, Integer::sum);
							assertThat(delivery.ack()).isTrue();
						}
					}
					return null;
				}));
			}
			for (Future<?> consumer : running) {
				consumer.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			consumers.shutdownNow();
		}

		assertThat(handled).hasSize(2000).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
		assertThat(this.queue.stats()).extracting("scheduled", "due", "inFlight").containsExactly(0L, 0L, 0L);
	}

	@Test
	void redeliversEveryTaskHeldByAConsumerKilledWithSigkill(RedisServer server) throws Exception {
		for (int i = 0; i < 100; i++) {
			this.queue.schedule("t-" + i, new Order("t-" + i, i), Duration.ZERO);
		}
		Process child = new ProcessBuilder(javaBin(), "-cp", System.getProperty("java.class.path"),
				DyingConsumer.class.getName(), server.url(), "40")
			.redirectErrorStream(true)
			.start();
		Set<String> heldByChild;
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line = output.readLine();
			while (line != null && !line.startsWith("CLAIMED ")) {
				line = output.readLine();
			}
			assertThat(line).as("child output").isNotNull();
			heldByChild = Set.copyOf(Arrays.asList(line.substring("CLAIMED ".length()).split(",")));
			child.destroyForcibly();
			child.waitFor(10, TimeUnit.SECONDS);
		}
		assertThat(heldByChild).hasSize(40);

		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			for (Delivery<Order> delivery : this.queue.poll(50)) {
				attempts.put(delivery.id(), delivery.attempt());
				delivery.ack();
			}
			return attempts.size() == 100;
		});

		heldByChild.forEach((id) -> assertThat(attempts).containsEntry(id, 2));
		assertThat(attempts.values()).filteredOn((attempt) -> attempt == 1).hasSize(60);
	}

	private static String javaBin() {
		return String.join(File.separator, System.getProperty("java.home"), "bin", "java");
	}

	/**
	 * A consumer in a child JVM: claims tasks with a short visibility timeout, says which, and
	 * waits to be killed.
	 */
	static final class DyingConsumer {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
			RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
				.visibilityTimeout(Duration.ofSeconds(1))
				.build();
			List<Delivery<Order>> held = queues.get("orders", Order.class).poll(Integer.parseInt(args[1]));
			System.out.println("CLAIMED " + String.join(",", held.stream().map(Delivery::id).toList()));
			System.out.flush();
			TimeUnit.MINUTES.sleep(5);
		}

	}

}
