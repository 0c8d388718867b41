package dev.baton.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's {@code RDelayedQueue} in front of an {@code RBlockingQueue}, consumed by threads
 * blocked in {@code take()}. Redisson deprecates it and it has no acknowledgement (a task taken
 * by a consumer that dies is lost), but it is what its users have for delayed tasks.
 */
@SuppressWarnings("deprecation") // RDelayedQueue is the implementation under test
final class RedissonQueueClient implements QueueClient {

	private static final int IN_FLIGHT = 1000;

	private final RedissonClient redisson;

	private final RDelayedQueue<String> delayed;

	private final List<Thread> consumers = new ArrayList<>();

	RedissonQueueClient(String redisUrl, String queue, int consumers, TaskHandler handler) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress(redisUrl);
		this.redisson = Redisson.create(config);
		RBlockingQueue<String> target = this.redisson.getBlockingQueue(queue);
		this.delayed = this.redisson.getDelayedQueue(target);
		for (int i = 0; i < consumers; i++) {
			Thread consumer = new Thread(() -> consume(target, handler), "redisson-consumer-" + i);
			consumer.setDaemon(true);
			consumer.start();
			this.consumers.add(consumer);
		}
	}

	private static void consume(RBlockingQueue<String> target, TaskHandler handler) {
		try {
			while (!Thread.currentThread().isInterrupted()) {
				handler.handle(target.take());
			}
		}
		catch (InterruptedException ex) {
			// stopped by close()
		}
	}

	@Override
	public void schedule(String id, String payload, Duration delay) {
		this.delayed.offer(payload, delay.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void scheduleAll(List<Task> tasks) {
		List<CompletableFuture<Void>> pending = new ArrayList<>(IN_FLIGHT);
		for (Task task : tasks) {
			pending.add(this.delayed.offerAsync(task.payload(), task.delay().toMillis(), TimeUnit.MILLISECONDS)
				.toCompletableFuture());
			if (pending.size() == IN_FLIGHT) {
				CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
				pending.clear();
			}
		}
		CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
	}

	@Override
	public void close() {
		this.consumers.forEach(Thread::interrupt);
		for (Thread consumer : this.consumers) {
			try {
				consumer.join(5000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.delayed.destroy();
		this.redisson.shutdown();
	}

}
