package dev.baton.autoconfigure.queue;

import java.time.Duration;

import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.listener.BackoffPolicy;
import dev.baton.queue.listener.InvalidListenerSettingException;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.redis.RedisDelayQueues;
import org.jspecify.annotations.Nullable;

/**
 * Each queue's settings as {@code baton.queue.*} gives them: its own under
 * {@code baton.queue.queues.<name>.*} where set, otherwise the defaults, checked so that a value
 * out of range fails naming its property. {@link BatonQueueProperties} only holds the values.
 */
final class QueueSettings {

	/** The largest string Redis stores (its default proto-max-bulk-len). */
	private static final long MAX_PAYLOAD_SIZE = 512L * 1024 * 1024;

	private final BatonQueueProperties properties;

	QueueSettings(BatonQueueProperties properties) {
		this.properties = properties;
	}

	/**
	 * The visibility timeout of queues that do not set their own, checked before the queue engine
	 * takes it, so that a value out of range fails naming the property.
	 * @return the timeout
	 * @throws InvalidQueueSettingException naming {@code baton.queue.visibility-timeout} if it is
	 * below 1 ms
	 */
	Duration defaultVisibilityTimeout() {
		if (this.properties.getVisibilityTimeout().toMillis() < 1) {
			throw new InvalidQueueSettingException("baton.queue.visibility-timeout",
					"must be at least 1ms (Redis keeps it in milliseconds), was " + this.properties.getVisibilityTimeout());
		}
		return this.properties.getVisibilityTimeout();
	}

	/**
	 * The largest payload of every queue, checked so that a value out of range fails naming the
	 * property.
	 * @return the size in bytes
	 * @throws IllegalArgumentException naming {@code baton.queue.max-payload-size} if it is not
	 * between 1B and 512MB, the largest string Redis stores (its default proto-max-bulk-len)
	 */
	int maxPayloadSize() {
		long bytes = this.properties.getMaxPayloadSize().toBytes();
		if (bytes < 1 || bytes > MAX_PAYLOAD_SIZE) {
			throw new IllegalArgumentException(
					"baton.queue.max-payload-size must be between 1B and 512MB, was " + this.properties.getMaxPayloadSize());
		}
		return (int) bytes;
	}

	/**
	 * The storage format new tasks are written in, checked so that an unknown one fails naming the
	 * property.
	 * @return the format
	 * @throws IllegalArgumentException naming {@code baton.queue.storage-format} if this build does
	 * not write it
	 */
	int storageFormat() {
		int format = this.properties.getStorageFormat();
		if (format < 0 || format > RedisDelayQueues.LATEST_STORAGE_FORMAT) {
			throw new IllegalArgumentException("baton.queue.storage-format must be from 0 to "
					+ RedisDelayQueues.LATEST_STORAGE_FORMAT + ", was " + format);
		}
		return format;
	}

	/**
	 * The settings of one queue: its own where configured, otherwise the defaults.
	 * @param name the queue name
	 * @return the settings
	 * @throws IllegalArgumentException naming the queue if the settings are inconsistent
	 */
	ListenerSettings settings(String name) {
		BatonQueueProperties.Queue queue = this.properties.getQueues().getOrDefault(name, new BatonQueueProperties.Queue());
		BatonQueueProperties.Backoff.Override backoff = queue.getBackoff();
		try {
			return new ListenerSettings(or(queue.getMaxAttempts(), this.properties.getMaxAttempts()),
					new BackoffPolicy(or(backoff.getInitial(), this.properties.getBackoff().getInitial()),
							or(backoff.getMultiplier(), this.properties.getBackoff().getMultiplier()),
							or(backoff.getMax(), this.properties.getBackoff().getMax())),
					or(queue.getVisibilityTimeout(), this.properties.getVisibilityTimeout()), or(queue.getBatchSize(), this.properties.getBatchSize()),
					or(queue.getPrefetch(), this.properties.getPrefetch()), or(queue.getClaimAhead(), this.properties.getClaimAhead()),
					or(queue.getMaxIdlePoll(), this.properties.getMaxIdlePoll()), or(queue.getShutdownTimeout(), this.properties.getShutdownTimeout()),
					or(queue.getMaxDeliveries(), this.properties.getMaxDeliveries()));
		}
		catch (InvalidListenerSettingException ex) {
			String prefix = (isSet(queue, ex.getSetting())) ? "baton.queue.queues." + name + "." : "baton.queue.";
			throw new InvalidQueueSettingException(name, prefix + ex.getSetting(), ex.getProblem(), ex);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Invalid baton.queue settings for queue '" + name + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Whether one queue reads its payloads strictly: its own setting where configured, otherwise
	 * the default.
	 * @param name the queue name
	 * @return whether payloads are read strictly
	 */
	boolean strictPayloads(String name) {
		BatonQueueProperties.Queue queue = this.properties.getQueues().get(name);
		return or((queue != null) ? queue.getStrictPayloads() : null, this.properties.isStrictPayloads());
	}

	/**
	 * The retention of one queue's dead letters: its own where configured, otherwise the default.
	 * @param name the queue name
	 * @return the retention
	 * @throws IllegalArgumentException naming the property if the retention is out of range
	 */
	DeadLetterRetention deadLetterRetention(String name) {
		BatonQueueProperties.Queue queue = this.properties.getQueues().get(name);
		BatonQueueProperties.DeadLetterRetention own = (queue != null) ? queue.getDeadLetterRetention() : null;
		BatonQueueProperties.DeadLetterRetention all = this.properties.getDeadLetterRetention();
		DeadLetterRetention core = DeadLetterRetention.DEFAULT;
		try {
			return new DeadLetterRetention(
					or((own != null) ? own.getMaxCount() : null, or(all.getMaxCount(), core.maxCount())),
					or((own != null) ? own.getMaxAge() : null, or(all.getMaxAge(), core.maxAge())));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid baton.queue settings for queue '" + name + "': " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * The concurrency configured for one queue, which replaces its handler's own.
	 * @param name the queue name
	 * @return the concurrency, or {@code null} to keep the handler's
	 */
	@Nullable Integer concurrency(String name) {
		BatonQueueProperties.Queue queue = this.properties.getQueues().get(name);
		return (queue != null) ? queue.getConcurrency() : null;
	}

	/**
	 * How many partitions one queue is spread over.
	 * @param name the queue name
	 * @return the partitions, 1 unless configured
	 * @throws InvalidQueueSettingException naming the property if the count is out of range
	 */
	int partitions(String name) {
		BatonQueueProperties.Queue queue = this.properties.getQueues().get(name);
		int partitions = (queue != null && queue.getPartitions() != null) ? queue.getPartitions() : 1;
		if (partitions < 1 || partitions > RedisDelayQueues.MAX_PARTITIONS) {
			throw new InvalidQueueSettingException(name, "baton.queue.queues." + name + ".partitions",
					"must be between 1 and " + RedisDelayQueues.MAX_PARTITIONS + ", was " + partitions, null);
		}
		return partitions;
	}

	/** Whether the queue sets the named listener setting itself, rather than taking the default. */
	private static boolean isSet(BatonQueueProperties.Queue queue, String setting) {
		Object value = switch (setting) {
			case "max-idle-poll" -> queue.getMaxIdlePoll();
			case "visibility-timeout" -> queue.getVisibilityTimeout();
			case "max-attempts" -> queue.getMaxAttempts();
			case "max-deliveries" -> queue.getMaxDeliveries();
			case "shutdown-timeout" -> queue.getShutdownTimeout();
			case "batch-size" -> queue.getBatchSize();
			case "prefetch" -> queue.getPrefetch();
			case "claim-ahead" -> queue.getClaimAhead();
			default -> null;
		};
		return value != null;
	}

	private static <V> V or(@Nullable V value, V fallback) {
		return (value != null) ? value : fallback;
	}

}
