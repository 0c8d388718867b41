package dev.baton.harness;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.DelayedTaskEndpoint;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One application instance as the harness runs it: its own proxy to Redis (standalone) or
 * Sentinel's addresses, one connection factory with Lettuce's default 60 s timeout (so Baton's
 * own bounds are what is tested), a lock manager, the queues and a listener container consuming
 * the harness queue, through a handler that returns when done, one that returns a
 * {@code CompletableFuture} or one that returns a {@code Mono} ({@link #handlerMethod}). When the factory finds its primary through Sentinel, the
 * lock manager and the queues follow its switches as the application does (a started
 * {@link PrimarySwitchWatch}).
 */
final class HarnessInstance implements AutoCloseable {

	static final String QUEUE = "harness";

	static final Duration LEASE_TIME = Duration.ofMillis(1500);

	static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);

	static final Duration QUEUE_COMMAND_TIMEOUT = Duration.ofMillis(500);

	final int index;

	/** Its link to Redis, or {@code null} when it connects to Sentinel's addresses directly. */
	final @Nullable RedisProxy proxy;

	/** The instance's lock manager: another one after a {@link FaultKind#LOCKS_RESTART}. */
	private volatile RedisLockManager locks;

	private final LossReports losses;

	final DelayQueue<HarnessTask> queue;

	final SimpleMeterRegistry meters;

	private final LettuceConnectionFactory connectionFactory;

	private final RedisDelayQueues queues;

	private final DelayedTaskListenerRegistry listeners;

	private final TaskHandler handler;

	private final @Nullable PrimarySwitchWatch watch;

	/**
	 * @param link its connection factory and proxy, both closed with the instance
	 * @param partitions the partitions of the harness queue
	 * @param visibility the harness queue's visibility timeout
	 * @param observer a queue that reads Redis without this instance's proxy, for the async handler
	 */
	HarnessInstance(int index, HarnessTopology.Link link, int partitions, Visibility visibility, LossReports losses,
			TaskLedger ledger, Timeline timeline, DelayQueue<HarnessTask> observer) {
		this.index = index;
		this.proxy = link.proxy();
		this.meters = new StaleCountingMeters(index, ledger, timeline);
		this.connectionFactory = link.connectionFactory();
		this.losses = losses;
		this.locks = newLockManager();
		this.queues = RedisDelayQueues.builder(this.connectionFactory, JsonMapper.builder().build())
			.commandTimeout(QUEUE_COMMAND_TIMEOUT)
			.partitions((name) -> partitions)
			.meterRegistry(this.meters)
			.build();
		this.queue = this.queues.get(QUEUE, HarnessTask.class);
		this.listeners = DelayedTaskListenerRegistry.builder(this.queues)
			.settings((queue) -> visibility.listener())
			.meterRegistry(this.meters)
			.build();
		this.handler = new TaskHandler(index, ledger, timeline, observer);
		this.listeners.register(endpoint(this.handler, handlerMethod(index)));
		this.watch = PrimarySwitchWatch.of(this.connectionFactory).orElse(null);
		if (this.watch != null) {
			this.locks.followPrimarySwitches(this.watch);
			this.queues.followPrimarySwitches(this.watch);
			this.watch.start();
		}
	}

	private RedisLockManager newLockManager() {
		return RedisLockManager.builder(this.connectionFactory)
			.leaseTime(LEASE_TIME)
			.commandTimeout(COMMAND_TIMEOUT)
			.lockLostListener((event) -> this.losses.lost(this.index, event))
			.meterRegistry(this.meters)
			.build();
	}

	RedisLockManager locks() {
		return this.locks;
	}

	/**
	 * Replaces the lock manager as a rolling deploy does: a new one takes every acquisition from
	 * now on, and the old one is returned for its shutdown.
	 * @return the old lock manager, still open
	 */
	RedisLockManager replaceLocks() {
		RedisLockManager old = this.locks;
		RedisLockManager successor = newLockManager();
		if (this.watch != null) {
			successor.followPrimarySwitches(this.watch);
		}
		this.locks = successor;
		return old;
	}

	/** A started connection factory with Lettuce's default 60 s timeout. */
	static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Instances consume in turn through a handler that returns when done, one that returns a
	 * {@code CompletableFuture}, and one that returns a {@code Mono} of the same work.
	 */
	static String handlerMethod(int index) {
		return switch (index % 3) {
			case 0 -> "handle";
			case 1 -> "handleAsync";
			default -> "handleReactive";
		};
	}

	private static DelayedTaskEndpoint endpoint(TaskHandler handler, String methodName) {
		try {
			Method method = TaskHandler.class.getDeclaredMethod(methodName, HarnessTask.class, TaskContext.class);
			return new DelayedTaskEndpoint(QUEUE, handler, method, HarnessTask.class, 2, null, null, null, null, null,
					true);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

	void startConsuming() {
		this.listeners.start();
	}

	/** Stops consuming: running handlers finish or their tasks are handed back. */
	void stopConsuming() {
		this.listeners.stop();
	}

	/** The sum of a counter over its tags, 0 if never counted. */
	double count(String meter) {
		return this.meters.find(meter).counters().stream().mapToDouble((counter) -> counter.count()).sum();
	}

	@Override
	public void close() {
		if (this.proxy != null) {
			this.proxy.heal();
		}
		this.listeners.stop();
		this.handler.close();
		this.locks.close();
		this.queues.close();
		if (this.watch != null) {
			this.watch.close();
		}
		this.connectionFactory.destroy();
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

}
