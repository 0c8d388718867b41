package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers that return a {@link java.util.concurrent.CompletionStage}, a {@link Future} or a
 * reactive type ({@link Mono}, {@link Flux}, RxJava) are settled by its outcome, not by
 * returning: a publisher is subscribed to and its work done before the task is acknowledged.
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
		assertThat(queue.deadLetters(10).get(0).reason()).isEqualTo("java.lang.IllegalStateException");
	}

	@Test
	void subscribesToAColdFluxAndRetriesItsFailure(RedisConnectionFactory connectionFactory) {
		FluxHandler handler = new FluxHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> queue = app.queues.get("fluxes", Parcel.class);

		queue.schedule("x-1", new Parcel("x-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("x-1").isEmpty() && handler.done.size() == 4);
		assertThat(handler.subscribed).containsExactly(1, 2);
		// the first attempt failed at its second step; the retry ran all three
		assertThat(handler.done).containsExactly("x-1 step 1", "x-1 step 1", "x-1 step 2", "x-1 step 3");
	}

	@Test
	void waitsForAFutureThatIsNotACompletionStage(RedisConnectionFactory connectionFactory) {
		PlainFutureHandler handler = new PlainFutureHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> queue = app.queues.get("plain-futures", Parcel.class);

		queue.schedule("p-1", new Parcel("p-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> handler.attempts.contains(2));
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.find("p-1").isEmpty());
		assertThat(handler.attempts).containsExactly(1, 2);
	}

	@Test
	void subscribesToRxJavaTypesThroughSpringsAdapters(RedisConnectionFactory connectionFactory) {
		RxJavaHandler handler = new RxJavaHandler();
		ListenerContext app = start(connectionFactory, handler);
		DelayQueue<Parcel> completables = app.queues.get("completables", Parcel.class);
		DelayQueue<Parcel> flowables = app.queues.get("flowables", Parcel.class);

		completables.schedule("c-1", new Parcel("c-1", 1), Duration.ZERO);
		flowables.schedule("w-1", new Parcel("w-1", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(5)).until(() -> completables.deadLetters(10).size() == 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> flowables.find("w-1").isEmpty() && handler.items.size() == 2);
		assertThat(handler.completableAttempts).containsExactly(1, 2);
		assertThat(completables.deadLetters(10).get(0).reason()).isEqualTo("java.lang.IllegalStateException");
		assertThat(handler.items).containsExactly("w-1 a", "w-1 b");
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

	/** A cold flux: nothing of it runs unless subscribed to; the first attempt fails halfway. */
	static class FluxHandler {

		final List<Integer> subscribed = new CopyOnWriteArrayList<>();

		final List<String> done = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "fluxes")
		Flux<String> handle(Parcel parcel, TaskContext context) {
			return Flux.defer(() -> {
				this.subscribed.add(context.attempt());
				return Flux.range(1, 3)
					.delayElements(Duration.ofMillis(20))
					.map((step) -> parcel.id() + " step " + step)
					.doOnNext((step) -> {
						if (context.attempt() == 1 && step.endsWith("2")) {
							throw new IllegalStateException("flux failed on attempt 1");
						}
						this.done.add(step);
					});
			});
		}

	}

	/** Returns a {@link Future} that is no {@code CompletionStage}, failing on the first attempt. */
	static class PlainFutureHandler {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "plain-futures")
		Future<Void> handle(Parcel parcel, TaskContext context) {
			this.attempts.add(context.attempt());
			FutureTask<Void> result = new FutureTask<>(() -> {
				Thread.sleep(100);
				if (context.attempt() == 1) {
					throw new IllegalStateException("future failed on attempt 1");
				}
				return null;
			});
			new Thread(result).start();
			return result;
		}

	}

	static class RxJavaHandler {

		final List<Integer> completableAttempts = new CopyOnWriteArrayList<>();

		final List<String> items = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "completables", maxAttempts = "2")
		Completable complete(Parcel parcel, TaskContext context) {
			return Completable.defer(() -> {
				this.completableAttempts.add(context.attempt());
				return Completable.error(new IllegalStateException("completable failed on attempt " + context.attempt()));
			});
		}

		@DelayedTask(queue = "flowables")
		Flowable<String> flow(Parcel parcel) {
			return Flowable.just("a", "b").map((item) -> parcel.id() + " " + item).doOnNext(this.items::add);
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
