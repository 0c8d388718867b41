package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers that return a {@link java.util.concurrent.CompletionStage} or a {@link Mono} are
 * settled by its outcome, not by returning.
 */
@RedisTest
class DelayedTaskAsyncHandlerTests {

	private static final ListenerSettings SETTINGS = new ListenerSettings(5,
			new BackoffPolicy(Duration.ofMillis(50), 2.0, Duration.ofMillis(200)), Duration.ofSeconds(1), 32, 0,
			Duration.ofMillis(200), Duration.ofSeconds(2));

	private final List<ListenerContext> contexts = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ListenerContext::close);
	}

	@Test
	void acknowledgesCompletionStageOnlyOnceItCompletes(RedisConnectionFactory connectionFactory) {
		FutureHandler handler = new FutureHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> queue = app.queues.get("futures", Parcel.class);

		queue.schedule("f-1", new Parcel("f-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.results.size() == 1);

		// longer than the 1 s visibility timeout: it is extended while the result is pending
		await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
		assertThat(queue.find("f-1")).isPresent();
		handler.results.get(0).complete(null);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("f-1").isEmpty());
		assertThat(handler.results).hasSize(1);
	}

	@Test
	void retriesCompletionStageThatFailsLater(RedisConnectionFactory connectionFactory) {
		FutureHandler handler = new FutureHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> queue = app.queues.get("futures", Parcel.class);

		queue.schedule("f-1", new Parcel("f-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handler.results.size() == 1);
		handler.results.get(0).completeExceptionally(new IllegalStateException("failed later"));

		await().atMost(Duration.ofSeconds(5)).until(() -> handler.attempts.contains(2));
		handler.results.get(1).complete(null);
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("f-1").isEmpty());
	}

	@Test
	void deadLettersMonoThatFailsOnItsLastAttempt(RedisConnectionFactory connectionFactory) {
		MonoHandler handler = new MonoHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> queue = app.queues.get("monos", Parcel.class);

		queue.schedule("m-1", new Parcel("m-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> queue.deadLetters(10).size() == 1);
		assertThat(handler.attempts).containsExactly(1, 2);
		assertThat(queue.deadLetters(10).get(0).reason()).contains("mono failed on attempt 2");
	}

	private ListenerContext start(RedisConnectionFactory connectionFactory, Object handler) {
		ListenerContext context = new ListenerContext(connectionFactory, (queue) -> SETTINGS, handler);
		this.contexts.add(context);
		return context.start();
	}

	static class FutureHandler {

		final List<CompletableFuture<Void>> results = new CopyOnWriteArrayList<>();

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "futures")
		CompletableFuture<Void> handle(Parcel parcel, TaskContext context) {
			CompletableFuture<Void> result = new CompletableFuture<>();
			this.attempts.add(context.attempt());
			this.results.add(result);
			return result;
		}

	}

	static class MonoHandler {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "monos", maxAttempts = "2")
		Mono<Void> handle(Parcel parcel, TaskContext context) {
			this.attempts.add(context.attempt());
			return Mono.delay(Duration.ofMillis(100))
				.then(Mono.error(new IllegalStateException("mono failed on attempt " + context.attempt())));
		}

	}

}
