package dev.baton.harness;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.DelayedTaskEndpoint;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One application instance as the harness runs it: its own proxy to Redis (standalone) or
 * Sentinel's or the Cluster's addresses, and an application on it: a connection factory with
 * Lettuce's default 60 s timeout (so Baton's own bounds are what is tested), a lock manager, the
 * queues and a listener container consuming the harness queue, through a handler that returns
 * when done, one that returns a {@code CompletableFuture} or one that returns a {@code Mono}
 * ({@link #handlerMethod}). When the factory finds its primary through Sentinel, the lock manager
 * and the queues follow its switches as the application does (a started
 * {@link PrimarySwitchWatch}). Restarts replace the lock manager, or the whole application (a
 * rolling deploy), while the instance's proxy and meters stay.
 */
final class HarnessInstance implements AutoCloseable {

	static final String QUEUE = "harness";

	static final Duration LEASE_TIME = Duration.ofMillis(1500);

	static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);

	static final Duration QUEUE_COMMAND_TIMEOUT = Duration.ofMillis(500);

	final int index;

	/** Its link to Redis: no proxy when it connects to Sentinel's addresses directly. */
	final InstanceProxies proxies;

	final SimpleMeterRegistry meters;

	/** Where its connection factories connect: through its proxy, or to Sentinel or the Cluster. */
	private final RedisConfiguration redis;

	private final int partitions;

	private final Visibility visibility;

	private final LossReports losses;

	private final TaskLedger ledger;

	private final Timeline timeline;

	private final DelayQueue<HarnessTask> observer;

	/** The handlers of its applications, one each, named {@code instance-<index>#<deployment>}. */
	private final List<TaskHandler> handlers = new CopyOnWriteArrayList<>();

	/** The instance's lock manager: another one after a restart of it or of the instance. */
	private volatile RedisLockManager locks;

	/** The rest of what the application runs: another after a {@link FaultKind#INSTANCE_RESTART}. */
	private volatile Deployment deployment;

	/**
	 * @param link where it connects, and its proxy, closed with the instance
	 * @param partitions the partitions of the harness queue
	 * @param visibility the harness queue's visibility timeout
	 * @param observer a queue that reads Redis without this instance's proxy, for the async handler
	 */
	HarnessInstance(int index, HarnessTopology.Link link, int partitions, Visibility visibility, LossReports losses,
			TaskLedger ledger, Timeline timeline, DelayQueue<HarnessTask> observer) {
		this.index = index;
		this.proxies = link.proxies();
		this.redis = link.configuration();
		this.meters = new StaleCountingMeters(index, ledger, timeline);
		this.partitions = partitions;
		this.visibility = visibility;
		this.losses = losses;
		this.ledger = ledger;
		this.timeline = timeline;
		this.observer = observer;
		this.deployment = new Deployment();
		this.locks = newLockManager(this.deployment);
		this.deployment.startWatching();
	}

	private RedisLockManager newLockManager(Deployment deployment) {
		RedisLockManager manager = RedisLockManager.builder(deployment.connectionFactory)
			.leaseTime(LEASE_TIME)
			.commandTimeout(COMMAND_TIMEOUT)
			.lockLostListener((event) -> this.losses.lost(this.index, event))
			.meterRegistry(this.meters)
			.build();
		if (deployment.watch != null) {
			manager.followPrimarySwitches(deployment.watch);
		}
		return manager;
	}

	RedisLockManager locks() {
		return this.locks;
	}

	/** The harness queue, as the instance's application has it now. */
	DelayQueue<HarnessTask> queue() {
		return this.deployment.queue;
	}

	/**
	 * Replaces the lock manager as a rolling deploy does: a new one takes every acquisition from
	 * now on, and the old one is returned for its shutdown.
	 * @return the old lock manager, still open
	 */
	RedisLockManager replaceLocks() {
		RedisLockManager old = this.locks;
		this.locks = newLockManager(this.deployment);
		return old;
	}

	/**
	 * Deploys the instance anew, as a rolling deploy does: a new connection factory, lock manager,
	 * queues and consumer take over at once (the consumer started), and the old ones are returned,
	 * still running, for the shutdown of the old application.
	 */
	Retired redeploy() {
		Retired old = new Retired(this.deployment, this.locks);
		Deployment successor = new Deployment();
		this.locks = newLockManager(successor);
		successor.startWatching();
		this.deployment = successor;
		successor.listeners.start();
		return old;
	}

	/**
	 * A started connection factory with Lettuce's default 60 s timeout.
	 * @param resources the client resources, or {@code null} for a factory's own
	 */
	static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration,
			@Nullable ClientResources resources) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(60));
		if (resources != null) {
			client.clientResources(resources);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
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

	/** The handler of a new application: its runs count as the instance's, its events name the application. */
	private TaskHandler newHandler() {
		TaskHandler handler = new TaskHandler(this.index, "instance-" + this.index + "#" + (this.handlers.size() + 1),
				this.ledger, this.timeline, this.observer);
		this.handlers.add(handler);
		return handler;
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
		this.deployment.listeners.start();
	}

	/** Stops consuming: running handlers finish or their tasks are handed back. */
	void stopConsuming() {
		this.deployment.listeners.stop();
	}

	/** The sum of a counter over its tags, 0 if never counted. */
	double count(String meter) {
		return this.meters.find(meter).counters().stream().mapToDouble((counter) -> counter.count()).sum();
	}

	@Override
	public void close() {
		this.proxies.heal();
		this.deployment.listeners.stop();
		this.handlers.forEach(TaskHandler::close);
		this.locks.close();
		this.deployment.close();
		this.proxies.close();
	}

	/**
	 * What an application runs on one connection factory, besides its lock manager: the queues,
	 * a listener container consuming the harness queue through the instance's handler, and, on
	 * Sentinel, the watch of primary switches that the lock managers and queues follow.
	 */
	private final class Deployment {

		final LettuceConnectionFactory connectionFactory;

		final RedisDelayQueues queues;

		final DelayQueue<HarnessTask> queue;

		final DelayedTaskListenerRegistry listeners;

		final @Nullable PrimarySwitchWatch watch;

		Deployment() {
			this.connectionFactory = connectionFactory(HarnessInstance.this.redis,
					HarnessInstance.this.proxies.resources());
			this.queues = RedisDelayQueues.builder(this.connectionFactory, JsonMapper.builder().build())
				.commandTimeout(QUEUE_COMMAND_TIMEOUT)
				.partitions((name) -> HarnessInstance.this.partitions)
				.meterRegistry(HarnessInstance.this.meters)
				.build();
			this.queue = this.queues.get(QUEUE, HarnessTask.class);
			this.listeners = DelayedTaskListenerRegistry.builder(this.queues)
				.settings((queue) -> HarnessInstance.this.visibility.listener())
				.meterRegistry(HarnessInstance.this.meters)
				.build();
			this.listeners.register(endpoint(newHandler(), handlerMethod(HarnessInstance.this.index)));
			this.watch = PrimarySwitchWatch.of(this.connectionFactory).orElse(null);
			if (this.watch != null) {
				this.queues.followPrimarySwitches(this.watch);
			}
		}

		/** Starts the watch once the lock manager follows it too: neither misses a switch. */
		void startWatching() {
			if (this.watch != null) {
				this.watch.start();
			}
		}

		/** Closes what the listeners' stop left: the queues, the watch, and the connection factory last. */
		void close() {
			this.queues.close();
			if (this.watch != null) {
				this.watch.close();
			}
			this.connectionFactory.destroy();
		}

	}

	/**
	 * An application a {@link #redeploy()} replaced, still running until its shutdown: its
	 * consumer stops, then its lock manager once all is released, then the rest.
	 */
	final class Retired {

		private final Deployment deployment;

		final RedisLockManager locks;

		private Retired(Deployment deployment, RedisLockManager locks) {
			this.deployment = deployment;
			this.locks = locks;
		}

		/** Stops consuming: running handlers finish or their tasks are handed back. */
		void stopConsuming() {
			this.deployment.listeners.stop();
		}

		/** Closes the queues, the watch and the connection factory, once the lock manager closed. */
		void close() {
			this.deployment.close();
		}

	}

}
