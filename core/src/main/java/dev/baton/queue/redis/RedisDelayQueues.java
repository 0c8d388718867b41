package dev.baton.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.ObservationSettings;
import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.internal.QueueInput;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LockManager;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.PayloadEnvelope;
import dev.baton.queue.QueueUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Delay queues stored in Redis. Each queue keeps its tasks in a few keys under one hash tag
 * ({@code baton:q:{name}:due}, {@code :tasks}, {@code :meta}, {@code :inflight}, {@code :dead}
 * ...), changes them only through Lua scripts, and takes every time from the Redis server's clock.
 * Payloads are written as JSON with the given mapper, without its default typing if it has any:
 * Redis does not choose which classes are instantiated (a payload type can still take
 * {@code @JsonTypeInfo(use = Id.NAME)}; one with class names as type ids is warned of).
 *
 * <p>Queues returned by {@link #get(String, Class)} are cheap and thread-safe; for a
 * {@linkplain Builder#knownQueues known} queue, the same name and type return the same instance. {@link #close()} stops listening for wake-ups.
 */
public final class RedisDelayQueues implements DelayQueues, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisDelayQueues.class);

	/** Most partitions of one queue: a claim sends a script to each. */
	public static final int MAX_PARTITIONS = 1024;

	/** The default of {@link Builder#maxPayloadSize(int)}: 1 MiB of JSON. */
	public static final int DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;

	/** The default of {@link Builder#keyPrefix(String)}. */
	public static final String DEFAULT_KEY_PREFIX = "baton:q:";

	/** The default of {@link Builder#commandTimeout(Duration)}. */
	public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** The default of {@link Builder#visibilityTimeout(Duration)}. */
	public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The newest storage format this build writes, and the default of
	 * {@link Builder#storageFormat(int)}: 1, the compact one (docs/upgrading.md).
	 */
	public static final int LATEST_STORAGE_FORMAT = 1;

	private final JsonMapper jsonMapper;

	private final String keyPrefix;

	private final Duration visibilityTimeout;

	private final QueueMetrics metrics;

	private final ObservationSettings<TaskSchedulingObservationConvention> observations;

	private final WakeChannels wakeChannels;

	private final TimedScripts timedScripts;

	private final Map<String, RedisDelayQueue<?>> queues = new ConcurrentHashMap<>();

	private final Map<String, Boolean> watchedQueues = new ConcurrentHashMap<>();

	private final Predicate<String> known;

	private final Function<String, DeadLetterRetention> deadLetterRetention;

	private final DeadLetterReason deadLetterReason;

	private final Predicate<String> strictPayloads;

	private final ToIntFunction<String> partitions;

	private final int maxPayloadSize;

	private final int storageFormat;

	private final PayloadEnvelope payloadEnvelope;

	private final @Nullable TokenLeases taskLocks;

	private RedisDelayQueues(Builder builder) {
		this.jsonMapper = PayloadTypeIds.withoutDefaultTyping(builder.jsonMapper);
		this.keyPrefix = builder.keyPrefix;
		this.visibilityTimeout = builder.visibilityTimeout;
		BatonThreads threads = BatonThreads.of(builder.threadFactory);
		this.metrics = (builder.meterRegistry != null) ? new MicrometerQueueMetrics(threads, builder.meterRegistry)
				: QueueMetrics.NONE;
		this.observations = new ObservationSettings<>(
				ObservationSettings.registry(builder.observationRegistry, builder.meterRegistry),
				builder.schedulingConvention);
		this.known = builder.known;
		this.deadLetterRetention = builder.deadLetterRetention;
		this.deadLetterReason = builder.deadLetterReason;
		this.strictPayloads = builder.strictPayloads;
		this.partitions = builder.partitions;
		this.maxPayloadSize = builder.maxPayloadSize;
		this.storageFormat = builder.storageFormat;
		this.payloadEnvelope = builder.payloadEnvelope;
		this.taskLocks = builder.taskLocks;
		this.wakeChannels = new WakeChannels(threads, builder.connectionFactory);
		this.timedScripts = new TimedScripts(threads, builder.connectionFactory, builder.commandTimeout,
				QueueUnavailableException::new);
	}


	/**
	 * Start building delay queues.
	 * @param connectionFactory the Redis connections to use
	 * @param jsonMapper the mapper that writes and reads payloads; Baton uses a copy without its
	 * default typing, if it has any
	 * @return a builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory, JsonMapper jsonMapper) {
		return new Builder(connectionFactory, jsonMapper);
	}

	/**
	 * The name of one of a queue's Redis keys, from the key layout the queues use (see "Redis key
	 * layout" in docs/delayed-tasks.md), for tests and tooling that read a queue's keys or look for
	 * the Redis Cluster node that serves a partition. The first partition, the only one of an
	 * unpartitioned queue, has {@code keyPrefix + "{" + queue + "}:" + suffix}; partition
	 * {@code k} from 1 has {@code keyPrefix + "{" + queue + "#" + k + "}:p" + k + ":" + suffix}.
	 * A task is in the partition numbered by the CRC-32 of its id (UTF-8) modulo the partition
	 * count. Do not write to these keys: their format may change between versions.
	 * @param keyPrefix the prefix of every key, {@link #DEFAULT_KEY_PREFIX} unless
	 * {@link Builder#keyPrefix(String)} set another
	 * @param queue the queue name
	 * @param partition the partition, from 0 to {@value #MAX_PARTITIONS} - 1
	 * @param suffix which key: {@code "due"}, {@code "tasks"}, {@code "meta"}, {@code "inflight"},
	 * {@code "seq"}, {@code "dead"}, {@code "dead-payloads"}, {@code "dead-info"} or
	 * {@code "partitions"}, or {@code "wake"} for the partition's wake channel
	 * @return the key
	 * @throws IllegalArgumentException if the prefix or the queue name is not one the queues take,
	 * the partition is out of bounds, or no key of the layout has the suffix
	 */
	public static String queueKey(String keyPrefix, String queue, int partition, String suffix) {
		checkKeyPrefix(keyPrefix);
		QueueInput.queueName(queue);
		if (partition < 0 || partition >= MAX_PARTITIONS) {
			throw new IllegalArgumentException(
					"Partition of queue '" + queue + "' must be from 0 to " + (MAX_PARTITIONS - 1) + ", was " + partition);
		}
		String base = QueueKeys.base(keyPrefix, queue, partition);
		List<String> named = QueueKeys.of(keyPrefix, queue, partition).named();
		String key = base + suffix;
		if (!named.contains(key)) {
			throw new IllegalArgumentException("Queue key suffix must be one of "
					+ named.stream().map((name) -> name.substring(base.length())).toList() + ", was '" + suffix + "'");
		}
		return key;
	}

	private static void checkKeyPrefix(@Nullable String keyPrefix) {
		if (keyPrefix == null || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Key prefix must not be null or contain '{' or '}'");
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>The returned queue also implements {@link dev.baton.queue.spi.ConsumableQueue}.
	 */
	@Override
	@SuppressWarnings("unchecked")
	public <T> DelayQueue<T> get(String name, Class<T> payloadType) {
		QueueInput.queueName(name);
		if (payloadType == null) {
			throw new IllegalArgumentException("Payload type of queue '" + name + "' must not be null");
		}
		if (!this.known.test(name)) {
			// A dynamic name: a fresh, cheap object that nothing keeps, and no meters of its own.
			return create(name, payloadType, QueueMetrics.NONE, ObservationSettings.none());
		}
		String key = name + "\u0000" + payloadType.getName();
		return (DelayQueue<T>) this.queues.computeIfAbsent(key, (k) -> {
			RedisDelayQueue<T> queue = create(name, payloadType, this.metrics, this.observations);
			PayloadTypeIds.warnOfClassNames(name, payloadType);
			if (!this.watchedQueues.containsKey(name)) {
				checkPartitions(name);
			}
			if (this.watchedQueues.putIfAbsent(name, Boolean.TRUE) == null) {
				this.metrics.watch(name, queue::stats);
			}
			return queue;
		});
	}

	/**
	 * Checks a known queue's partition count when first got, so that a wrong one fails start-up. A
	 * check Redis does not answer is left to the first write, which the scripts refuse while the
	 * count is not the recorded one.
	 */
	private void checkPartitions(String name) {
		try {
			layout(name).check();
		}
		catch (QueueUnavailableException ex) {
			logger.warn("Could not check the partitions of queue '" + name + "' (" + ex.getMessage()
					+ "); its first write checks them");
		}
	}

	private PartitionLayout layout(String name) {
		return new PartitionLayout(this.timedScripts, this.keyPrefix, name, this.partitions.applyAsInt(name));
	}

	/**
	 * Change the number of partitions a queue's task ids are placed in, which Redis records for
	 * every instance: the first instance of a new queue records its count, and from then on an
	 * instance configured with another one refuses to write to the queue
	 * ({@link PartitionCountChangeException}) until it is configured with the recorded count. Only an
	 * empty queue (no waiting, in-flight or dead task) changes its count: meanwhile every instance
	 * refuses to write to it, and afterwards those still configured with the old count. Deploy the
	 * new count once it is changed.
	 * @param name the queue name
	 * @param partitions the new number of partitions, 1 to {@value #MAX_PARTITIONS}
	 * @throws PartitionCountChangeException if the queue holds tasks; its count is left as it was
	 * @throws QueueUnavailableException if Redis failed: a change cut short
	 * leaves every instance refusing to write to the queue until it is asked for again
	 */
	public void changePartitions(String name, int partitions) {
		QueueInput.queueName(name);
		// Checks the bounds, naming the queue.
		new QueuePartitions(this.keyPrefix, name, partitions);
		PartitionLayout.change(this.timedScripts, this.keyPrefix, name, partitions);
	}

	private <T> RedisDelayQueue<T> create(String name, Class<T> payloadType, QueueMetrics metrics,
			ObservationSettings<TaskSchedulingObservationConvention> observations) {
		return new RedisDelayQueue<>(name, new QueuePartitions(this.keyPrefix, name, this.partitions.applyAsInt(name)),
				layout(name),
				new PayloadCodec<>(this.jsonMapper, name, this.payloadEnvelope, payloadType, this.strictPayloads.test(name),
						this.maxPayloadSize),
				this.visibilityTimeout, this.deadLetterRetention.apply(name), this.deadLetterReason, this.wakeChannels,
				this.timedScripts, metrics, observations, this.taskLocks, this.storageFormat);
	}

	/**
	 * Follows the primary switches that a watch reports (Redis Sentinel): queue calls wait while
	 * the sentinels promote a replica, within the command timeout, so that no claim or
	 * acknowledgement lands on the old primary after the promotion, where it would be lost and
	 * the tasks run again; after the switch the wake-up subscription moves to the new primary and
	 * every consumer claims at once.
	 * @param watch the watch of the connection factory these queues use
	 */
	public void followPrimarySwitches(PrimarySwitchWatch watch) {
		this.timedScripts.followPrimary(watch.hold());
		watch.onSwitch(this.wakeChannels::resubscribe);
	}

	/**
	 * Stop listening for wake-ups; the queues can still be used for everything but
	 * {@link dev.baton.queue.spi.ConsumableQueue#onWake(Runnable)}.
	 */
	@Override
	public void close() {
		this.wakeChannels.close();
		this.timedScripts.close();
		this.metrics.close();
	}

	/**
	 * Builds {@link RedisDelayQueues}.
	 */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private final JsonMapper jsonMapper;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;

		private Duration visibilityTimeout = DEFAULT_VISIBILITY_TIMEOUT;

		private @Nullable MeterRegistry meterRegistry;

		private @Nullable ObservationRegistry observationRegistry;

		private @Nullable TaskSchedulingObservationConvention schedulingConvention;

		private Predicate<String> known = (name) -> true;

		private Function<String, DeadLetterRetention> deadLetterRetention = (name) -> DeadLetterRetention.DEFAULT;

		private DeadLetterReason deadLetterReason = DeadLetterReason.EXCEPTION_CLASS;

		private Predicate<String> strictPayloads = (name) -> false;

		private ToIntFunction<String> partitions = (name) -> 1;

		private int maxPayloadSize = DEFAULT_MAX_PAYLOAD_SIZE;

		private int storageFormat = LATEST_STORAGE_FORMAT;

		private PayloadEnvelope payloadEnvelope = PayloadEnvelope.NONE;

		private @Nullable TokenLeases taskLocks;

		private @Nullable ThreadFactory threadFactory;

		private Builder(RedisConnectionFactory connectionFactory, JsonMapper jsonMapper) {
			if (connectionFactory == null || jsonMapper == null) {
				throw new IllegalArgumentException("Connection factory and JSON mapper must not be null");
			}
			this.connectionFactory = connectionFactory;
			this.jsonMapper = jsonMapper;
		}

		/**
		 * Set the prefix of every key; a queue's keys are
		 * {@code prefix + "{" + name + "}:" + suffix} ({@link RedisDelayQueues#queueKey} names
		 * them). The default is {@code "baton:q:"}.
		 * @param keyPrefix the key prefix
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			checkKeyPrefix(keyPrefix);
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Set how long a task {@linkplain DelayQueue#poll(int) polled} by a consumer stays
		 * invisible to others before it is delivered again. The default is 30 seconds.
		 * @param visibilityTimeout the visibility timeout, positive, at most
		 * {@link DelayQueue#MAX_VISIBILITY_TIMEOUT}
		 * @return this builder
		 */
		public Builder visibilityTimeout(Duration visibilityTimeout) {
			QueueInput.timeoutMillis(visibilityTimeout);
			this.visibilityTimeout = visibilityTimeout;
			return this;
		}

		/**
		 * Set the storage format in which new tasks are written (docs/upgrading.md): every instance
		 * reads each format up to {@link #LATEST_STORAGE_FORMAT}, and a task keeps the format it was
		 * written in. Format 0 (a payload hash and a meta hash) is what builds before format 1 read;
		 * during a rolling upgrade from such a build, write it until no instance of that build is
		 * left. The default is {@link #LATEST_STORAGE_FORMAT}.
		 * @param storageFormat 0 or 1
		 * @return this builder
		 */
		public Builder storageFormat(int storageFormat) {
			if (storageFormat < 0 || storageFormat > LATEST_STORAGE_FORMAT) {
				throw new IllegalArgumentException("Queue storage format must be from 0 to " + LATEST_STORAGE_FORMAT
						+ ", was " + storageFormat);
			}
			this.storageFormat = storageFormat;
			return this;
		}

		/**
		 * Set how long a queue call waits for Redis before it fails with a
		 * {@link org.springframework.data.redis.RedisSystemException}, whatever the connection's
		 * command timeout (Lettuce's default is 60 s): {@code schedule}, {@code find},
		 * {@code cancel} and the other calls of a {@link DelayQueue}, and claims and
		 * acknowledgements. The default is 2 seconds.
		 * @param commandTimeout the timeout, positive
		 * @return this builder
		 */
		public Builder commandTimeout(Duration commandTimeout) {
			if (commandTimeout == null || commandTimeout.toMillis() < 1) {
				throw new IllegalArgumentException("Queue command timeout must be at least 1 ms, was " + commandTimeout);
			}
			this.commandTimeout = commandTimeout;
			return this;
		}

		/**
		 * Record the {@code baton.queue.scheduled}, {@code baton.queue.inconsistent} and
		 * {@code baton.queue.dead-letters.deleted} counters and the {@code baton.queue.depth}
		 * gauges in the given registry, and, unless an {@link #observationRegistry} is set, the
		 * {@code baton.queue.schedule} timer. By default no metrics are recorded.
		 * @param meterRegistry the registry
		 * @return this builder
		 */
		public Builder meterRegistry(MeterRegistry meterRegistry) {
			this.meterRegistry = meterRegistry;
			return this;
		}

		/**
		 * Observe scheduling in the given registry: the {@code baton.queue.schedule} timer comes
		 * from its meter handler, and with tracing each task stores the trace context of its
		 * scheduling. Queues that are not {@linkplain #knownQueues known} are not observed.
		 * @param observationRegistry the registry
		 * @return this builder
		 */
		public Builder observationRegistry(ObservationRegistry observationRegistry) {
			this.observationRegistry = observationRegistry;
			return this;
		}

		/**
		 * Name and tag the observations of scheduling with the given convention instead of
		 * {@link dev.baton.observation.DefaultTaskSchedulingObservationConvention}.
		 * @param convention the convention
		 * @return this builder
		 */
		public Builder schedulingObservationConvention(TaskSchedulingObservationConvention convention) {
			this.schedulingConvention = convention;
			return this;
		}

		/**
		 * Set which queues the application knows (declares or consumes): only those get meters
		 * and are kept as objects. Others, such as names made per customer, are created on each
		 * {@code get}, cheaply, and leave nothing behind. By default every queue is known.
		 * @param known whether a queue name is known
		 * @return this builder
		 */
		public Builder knownQueues(Predicate<String> known) {
			this.known = known;
			return this;
		}

		/**
		 * Set which dead letters each queue deletes for good: beyond a count, and older than an
		 * age. Claims apply it, and count every deletion in {@code baton.queue.dead-letters.deleted}.
		 * The default, {@link DeadLetterRetention#DEFAULT} for every queue, deletes none.
		 * @param retention the retention by queue name
		 * @return this builder
		 */
		public Builder deadLetterRetention(Function<String, DeadLetterRetention> retention) {
			this.deadLetterRetention = retention;
			return this;
		}

		/**
		 * Set what a payload that cannot be read leaves as the reason of its dead letter, after
		 * {@code Payload cannot be read as <type>: }. The default,
		 * {@link DeadLetterReason#EXCEPTION_CLASS}, keeps no exception message: Jackson's quote the
		 * value they could not read, personal data that would stay in Redis as long as the dead
		 * letter.
		 * @param deadLetterReason the reason of each failure to read
		 * @return this builder
		 */
		public Builder deadLetterReason(DeadLetterReason deadLetterReason) {
			this.deadLetterReason = deadLetterReason;
			return this;
		}

		/**
		 * Set which queues read payloads strictly: a payload with a property its type does not
		 * have, or without one of its creator properties, is dead-lettered instead of handled. By
		 * default payloads are read leniently, so that tasks written by another version of the
		 * application during a rolling deploy still run.
		 * @param strictPayloads whether a queue reads its payloads strictly
		 * @return this builder
		 */
		public Builder strictPayloads(Predicate<String> strictPayloads) {
			this.strictPayloads = strictPayloads;
			return this;
		}

		/**
		 * Set how many partitions each queue is spread over, each in a hash slot of its own, so
		 * that one queue can use every shard of a Redis Cluster. A task's partition follows from
		 * its id; due order holds within a partition. The default is 1 for every queue. The first
		 * instance of a new queue records its count in Redis; an instance configured with another
		 * refuses to write to the queue ({@link PartitionCountChangeException}), a
		 * {@linkplain #knownQueues known} queue already when first got. Change a recorded count
		 * with {@link RedisDelayQueues#changePartitions}.
		 * @param partitions the number of partitions by queue name, 1 to 1024
		 * @return this builder
		 */
		public Builder partitions(ToIntFunction<String> partitions) {
			this.partitions = partitions;
			return this;
		}

		/**
		 * Set the largest payload a queue accepts, in bytes of its JSON (UTF-8): a larger one is
		 * refused with an {@link IllegalArgumentException} before anything is written. Redis holds
		 * every waiting payload in memory, and each claim carries the payloads of its tasks. The
		 * default is {@value #DEFAULT_MAX_PAYLOAD_SIZE} bytes.
		 * @param maxPayloadSize the most bytes, positive
		 * @return this builder
		 */
		public Builder maxPayloadSize(int maxPayloadSize) {
			if (maxPayloadSize < 1) {
				throw new IllegalArgumentException("Max payload size must be at least 1 byte, was " + maxPayloadSize);
			}
			this.maxPayloadSize = maxPayloadSize;
			return this;
		}

		/**
		 * Seal every payload's JSON before it is stored and open it when it is read, for example
		 * to encrypt or authenticate payloads with a key of the application. A payload that does
		 * not open is unreadable, and a claim dead-letters it. The default,
		 * {@link PayloadEnvelope#NONE}, stores the JSON as it is.
		 * @param payloadEnvelope the envelope of every queue's payloads
		 * @return this builder
		 */
		public Builder payloadEnvelope(PayloadEnvelope payloadEnvelope) {
			this.payloadEnvelope = payloadEnvelope;
			return this;
		}

		/**
		 * Let tasks hold locks of this lock manager
		 * ({@link DelayQueue#schedule(String, Object, Duration, dev.baton.lock.LockLease)}); without
		 * one, scheduling a task with a lease is refused. Tasks scheduled with a lock by another
		 * instance are still handled here, and their locks then run out instead of being released.
		 * @param lockManager a lock manager on the same Redis whose leases can be handed to tasks
		 * ({@link TokenLeases}, as the Redis lock manager is)
		 * @return this builder
		 * @throws IllegalArgumentException if the lock manager cannot give its locks to tasks
		 */
		public Builder lockManager(LockManager lockManager) {
			if (!(lockManager instanceof TokenLeases tokenLeases)) {
				throw new IllegalArgumentException("Lock manager " + lockManager.getClass().getName()
						+ " cannot give its locks to tasks: it does not implement " + TokenLeases.class.getName());
			}
			this.taskLocks = tokenLeases;
			return this;
		}

		/**
		 * Make the queues' threads with this factory: the one that reads the depth gauges'
		 * stats ({@code baton-queue-stats}, with a {@link #meterRegistry}), the one that passes
		 * the wake-up channels' signals on to the consumers ({@code baton-queue-wake-ups}, ended
		 * after a minute without a signal) and, with a Redis client whose subscriptions block a
		 * thread, the subscription's ({@code baton-queue-wake-ups-subscription}); also the
		 * threads that open connections ({@code baton-redis-connect}) when it makes platform threads, but never
		 * as virtual threads, since visibility extensions wait for them. Baton names each thread
		 * and makes each platform thread a daemon. The default is Baton's own daemon platform
		 * threads.
		 * @param threadFactory the factory, for instance of virtual threads
		 * @return this builder
		 */
		public Builder threadFactory(ThreadFactory threadFactory) {
			if (threadFactory == null) {
				throw new IllegalArgumentException("ThreadFactory must not be null");
			}
			this.threadFactory = threadFactory;
			return this;
		}

		/**
		 * Build the delay queues.
		 * @return the delay queues
		 */
		public RedisDelayQueues build() {
			return new RedisDelayQueues(this);
		}

	}

}
