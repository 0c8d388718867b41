package dev.baton.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.queue.listener.ListenerSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of delay queues and their {@code @DelayedTask} handlers.
 */
@ConfigurationProperties(prefix = "baton.queue", ignoreUnknownFields = false)
public class BatonQueueProperties {

	/** Whether to configure delay queues and run @DelayedTask handlers. */
	private boolean enabled = true;

	/** Prefix of every Redis key of the queues. */
	private String keyPrefix = "baton:q:";

	/**
	 * How long a queue call (schedule, find, cancel, a claim, an acknowledgement) waits for Redis
	 * before it fails, whatever the connection's command timeout; the same for every queue.
	 */
	private Duration commandTimeout = Duration.ofSeconds(2);

	/** Longest wait between two claims of an idle queue when no wake-up arrives. */
	private Duration maxIdlePoll = Duration.ofSeconds(5);

	/** How long a claimed task stays invisible to other consumers unless its handler extends it. */
	private Duration visibilityTimeout = Duration.ofSeconds(30);

	/**
	 * Deliveries of a task before it is dead-lettered. With the default backoff, 25 attempts span
	 * about 13 hours, so that an outage of a dependency does not dead-letter every task that met it.
	 */
	private int maxAttempts = 25;

	/** Delay between a failed attempt and the next. */
	private final Backoff backoff = new Backoff();

	/**
	 * Deliveries of a task, counted like attempts, after which it is dead-lettered without
	 * running again however they ended, so that a task whose handler crashes or stops the worker
	 * (OOM, System.exit) is not delivered for ever. A task is always delivered at least
	 * 'max-attempts' times.
	 */
	private int maxDeliveries = ListenerSettings.DEFAULT_MAX_DELIVERIES;

	/**
	 * How long shutdown waits for running handlers before handing their tasks back; cut to what
	 * 'spring.lifecycle.timeout-per-shutdown-phase' leaves after the hand-back (2s) and a second,
	 * with a warning at start-up, so that no bean a handler uses is destroyed under it.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(25);

	/** Most tasks claimed in one round trip. */
	private int batchSize = 128;

	/**
	 * Most claimed tasks that may wait in the instance for a free handler, beyond the concurrency.
	 * Raises throughput for short handlers; 0 leaves every task that no handler can start yet in
	 * Redis.
	 */
	private int prefetch = 1000;

	/**
	 * How soon a task claimed ahead must be expected to start, judged by the handler's measured
	 * duration: slow handlers claim fewer tasks ahead, so that other instances get them, and tasks
	 * that waited more than twice this time are handed back. 0 claims 'prefetch' tasks ahead
	 * whatever the handler's speed.
	 */
	private Duration claimAhead = Duration.ofMillis(100);

	/**
	 * Largest payload a queue accepts, as JSON in UTF-8; a larger one is refused with an
	 * IllegalArgumentException before anything is written. The same for every queue.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Storage format in which new tasks and dead letters are written: 1, the compact one, or 0,
	 * the one builds before format 1 read, while an instance of such a build is left in a
	 * rolling upgrade. Every format up to 1 is read whatever this says.
	 */
	private int storageFormat = 1;

	/** Settings of individual queues, by queue name, overriding the ones above. */
	private Map<String, Queue> queues = new LinkedHashMap<>();

	private final DeadLetterRetention deadLetterRetention = new DeadLetterRetention();

	/**
	 * Whether payloads are read strictly: a payload with a property its type does not have, or
	 * without one of its creator properties, is dead-lettered instead of handled. Lenient by
	 * default, so that tasks written by another version of the application still run.
	 */
	private boolean strictPayloads;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public Duration getMaxIdlePoll() {
		return this.maxIdlePoll;
	}

	public void setMaxIdlePoll(Duration maxIdlePoll) {
		this.maxIdlePoll = maxIdlePoll;
	}

	public Duration getVisibilityTimeout() {
		return this.visibilityTimeout;
	}

	public void setVisibilityTimeout(Duration visibilityTimeout) {
		this.visibilityTimeout = visibilityTimeout;
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	public int getMaxDeliveries() {
		return this.maxDeliveries;
	}

	public void setMaxDeliveries(int maxDeliveries) {
		this.maxDeliveries = maxDeliveries;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public int getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(int prefetch) {
		this.prefetch = prefetch;
	}

	public Duration getClaimAhead() {
		return this.claimAhead;
	}

	public void setClaimAhead(Duration claimAhead) {
		this.claimAhead = claimAhead;
	}

	public int getStorageFormat() {
		return this.storageFormat;
	}

	public void setStorageFormat(int storageFormat) {
		this.storageFormat = storageFormat;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, Queue> queues) {
		this.queues = queues;
	}

	public DeadLetterRetention getDeadLetterRetention() {
		return this.deadLetterRetention;
	}

	public boolean isStrictPayloads() {
		return this.strictPayloads;
	}

	public void setStrictPayloads(boolean strictPayloads) {
		this.strictPayloads = strictPayloads;
	}

	/**
	 * How many dead letters a queue keeps, and for how long.
	 */
	public static class DeadLetterRetention {

		/**
		 * Most dead letters kept per queue; claims delete the oldest beyond it for good, counting
		 * them in baton.queue.dead-letters.deleted. Unset, the default, keeps every dead letter.
		 */
		private @Nullable Integer maxCount;

		/**
		 * How long a dead letter is kept; claims delete older ones for good, counting them in
		 * baton.queue.dead-letters.deleted. Unset, the default, keeps dead letters for ever.
		 */
		private @Nullable Duration maxAge;

		public @Nullable Integer getMaxCount() {
			return this.maxCount;
		}

		public void setMaxCount(@Nullable Integer maxCount) {
			this.maxCount = maxCount;
		}

		public @Nullable Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(@Nullable Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

	/**
	 * Backoff between attempts.
	 */
	public static class Backoff {

		/** Delay after the first failed attempt. */
		private Duration initial = Duration.ofSeconds(1);

		/** Factor applied to the delay after each further attempt. */
		private double multiplier = 2.0;

		/** Longest delay between attempts. */
		private Duration max = Duration.ofHours(1);

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

		/**
		 * Backoff of one queue; unset values are the defaults.
		 */
		public static class Override {

			/** Delay after the first failed attempt. */
			private @Nullable Duration initial;

			/** Factor applied to the delay after each further attempt. */
			private @Nullable Double multiplier;

			/** Longest delay between attempts. */
			private @Nullable Duration max;

			public @Nullable Duration getInitial() {
				return this.initial;
			}

			public void setInitial(@Nullable Duration initial) {
				this.initial = initial;
			}

			public @Nullable Double getMultiplier() {
				return this.multiplier;
			}

			public void setMultiplier(@Nullable Double multiplier) {
				this.multiplier = multiplier;
			}

			public @Nullable Duration getMax() {
				return this.max;
			}

			public void setMax(@Nullable Duration max) {
				this.max = max;
			}

		}

	}

	/**
	 * Settings of one queue; unset values are the defaults of {@code baton.queue.*}.
	 */
	public static class Queue {

		/** Payload class of the queue, for a queue without a @DelayedTask handler to infer it from. */
		private @Nullable Class<?> payloadType;

		/** Most tasks of the queue handled at once on this instance; replaces the handler's concurrency. */
		private @Nullable Integer concurrency;

		private @Nullable DeadLetterRetention deadLetterRetention;

		/** Whether this queue reads its payloads strictly (see baton.queue.strict-payloads). */
		private @Nullable Boolean strictPayloads;

		/**
		 * Hash slots the queue's tasks are spread over, each holding the tasks whose ids fall in it,
		 * so that one queue can use every shard of a Redis Cluster. Can change only while the queue is
		 * empty.
		 */
		private @Nullable Integer partitions;

		public @Nullable Integer getPartitions() {
			return this.partitions;
		}

		public void setPartitions(@Nullable Integer partitions) {
			this.partitions = partitions;
		}

		public @Nullable Boolean getStrictPayloads() {
			return this.strictPayloads;
		}

		public void setStrictPayloads(@Nullable Boolean strictPayloads) {
			this.strictPayloads = strictPayloads;
		}

		public @Nullable DeadLetterRetention getDeadLetterRetention() {
			return this.deadLetterRetention;
		}

		public void setDeadLetterRetention(@Nullable DeadLetterRetention deadLetterRetention) {
			this.deadLetterRetention = deadLetterRetention;
		}

		/** Longest wait between two claims of an idle queue when no wake-up arrives. */
		private @Nullable Duration maxIdlePoll;

		/** How long a claimed task stays invisible to other consumers unless its handler extends it. */
		private @Nullable Duration visibilityTimeout;

		/** Deliveries of a task before it is dead-lettered. */
		private @Nullable Integer maxAttempts;

		/** Delay between a failed attempt and the next. */
		private final Backoff.Override backoff = new Backoff.Override();

		/** Deliveries of a task after which it is dead-lettered without running again, at least max-attempts. */
		private @Nullable Integer maxDeliveries;

		/** How long shutdown waits for running handlers before handing their tasks back. */
		private @Nullable Duration shutdownTimeout;

		/** Most tasks claimed in one round trip. */
		private @Nullable Integer batchSize;

		/** Most claimed tasks that may wait in the instance for a free handler, beyond the concurrency. */
		private @Nullable Integer prefetch;

		/** How soon a task claimed ahead must be expected to start, by the handler's measured duration. */
		private @Nullable Duration claimAhead;

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Class<?> getPayloadType() {
			return this.payloadType;
		}

		public void setPayloadType(@Nullable Class<?> payloadType) {
			this.payloadType = payloadType;
		}

		public @Nullable Duration getMaxIdlePoll() {
			return this.maxIdlePoll;
		}

		public void setMaxIdlePoll(@Nullable Duration maxIdlePoll) {
			this.maxIdlePoll = maxIdlePoll;
		}

		public @Nullable Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(@Nullable Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Backoff.Override getBackoff() {
			return this.backoff;
		}

		public @Nullable Integer getMaxDeliveries() {
			return this.maxDeliveries;
		}

		public void setMaxDeliveries(@Nullable Integer maxDeliveries) {
			this.maxDeliveries = maxDeliveries;
		}

		public @Nullable Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(@Nullable Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public @Nullable Integer getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(@Nullable Integer batchSize) {
			this.batchSize = batchSize;
		}

		public @Nullable Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Integer prefetch) {
			this.prefetch = prefetch;
		}

		public @Nullable Duration getClaimAhead() {
			return this.claimAhead;
		}

		public void setClaimAhead(@Nullable Duration claimAhead) {
			this.claimAhead = claimAhead;
		}

	}

}
