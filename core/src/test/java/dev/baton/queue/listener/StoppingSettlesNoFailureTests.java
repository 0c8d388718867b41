package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Once stopping began, no handler outcome settles its task as a failure: a handler that fails
 * then (because the beans it uses are going away) hands its task back, and stopping ends within
 * the context's shutdown phase, before those beans are destroyed.
 */
@RedisTest
class StoppingSettlesNoFailureTests {

	private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void aShutdownPhaseShorterThanTheShutdownTimeoutDoesNotDestroyBeansUnderTheHandler(
			RedisConnectionFactory connectionFactory) {
		Pool pool = new Pool();
		PoolHandler handler = new PoolHandler(pool);
		// The defaults but one attempt: a failure settled as an attempt would dead-letter the task
		ListenerSettings defaults = ListenerSettings.DEFAULTS;
		ListenerSettings settings = new ListenerSettings(1, defaults.backoff(), defaults.visibilityTimeout(),
				defaults.batchSize(), defaults.prefetch(), defaults.claimAhead(), defaults.maxIdlePoll(),
				defaults.shutdownTimeout());
		ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, handler);
		app.context.registerBean(Pool.class, () -> pool);
		app.start();
		DelayQueue<Parcel> queue = queues(connectionFactory).get("pooled", Parcel.class);
		queue.schedule("e-1", new Parcel("e-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.getCount() == 0);

		// A plain Spring context: its shutdown phase ends after 10 s, before the 30 s shutdown
		// timeout; then it destroys the pool under the running handler
		app.close();

		assertThat(queue.deadLetters(10)).isEmpty();
		assertThat(queue.find("e-1")).hasValueSatisfying((task) -> assertThat(task.inFlight()).isFalse());
		assertThat(handler.sawPoolClosed).isFalse();
	}

	@Test
	void aHandlerFailingOnceStoppingBeganHandsItsTaskBack(RedisConnectionFactory connectionFactory)
			throws InterruptedException {
		GatedHandler handler = new GatedHandler();
		ListenerSettings settings = new ListenerSettings(1, ListenerSettings.DEFAULTS.backoff(),
				Duration.ofSeconds(30), 32, 1, Duration.ofSeconds(1), Duration.ofSeconds(10));
		ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, handler).start();
		this.closeables.add(app);
		DelayQueue<Parcel> queue = queues(connectionFactory).get("gated", Parcel.class);
		queue.schedule("g-1", new Parcel("g-1", 1), Duration.ZERO);
		queue.schedule("g-2", new Parcel("g-2", 2), Duration.ofMillis(1));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> handler.started.getCount() == 0 && queue.stats().inFlight() == 2);

		Thread stopping = new Thread(() -> app.registry().stop());
		stopping.start();
		// The prefetched task is handed back as soon as stopping began
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().inFlight() == 1);
		handler.release.countDown();
		stopping.join(Duration.ofSeconds(15).toMillis());

		assertThat(queue.deadLetters(10)).isEmpty();
		assertThat(queue.find("g-1")).hasValueSatisfying((task) -> assertThat(task.inFlight()).isFalse());
	}

	private RedisDelayQueues queues(RedisConnectionFactory connectionFactory) {
		RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		this.closeables.add(queues);
		return queues;
	}

	/** A resource the context destroys after its shutdown phases, like a connection pool. */
	static class Pool implements DisposableBean {

		final CountDownLatch closed = new CountDownLatch(1);

		/** Waits for a connection that never comes; fails once the pool is closed. */
		void borrow() throws InterruptedException {
			this.closed.await();
			throw new IllegalStateException("pool closed");
		}

		@Override
		public void destroy() {
			this.closed.countDown();
		}

	}

	static class PoolHandler {

		final CountDownLatch started = new CountDownLatch(1);

		private final Pool pool;

		volatile boolean sawPoolClosed;

		PoolHandler(Pool pool) {
			this.pool = pool;
		}

		@DelayedTask(queue = "pooled")
		void handle(Parcel parcel) throws InterruptedException {
			this.started.countDown();
			try {
				this.pool.borrow();
			}
			catch (IllegalStateException ex) {
				this.sawPoolClosed = true;
				throw ex;
			}
		}

	}

	static class GatedHandler {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@DelayedTask(queue = "gated", concurrency = "1")
		void handle(Parcel parcel) throws InterruptedException {
			this.started.countDown();
			this.release.await();
			throw new IllegalStateException("failed while stopping");
		}

	}

}
