package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import dev.baton.internal.QueueInput;
import dev.baton.lock.LockLease;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.TaskLease;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of a task, identified by the token the claim script gave it.
 *
 * @param <T> the payload type
 */
final class RedisDelivery<T> implements Delivery<T> {

	private final RedisDelayQueue<T> queue;

	private final QueueKeys partition;

	private final String id;

	private final T payload;

	private final TaskMeta meta;

	private final @Nullable TaskLease lease;

	RedisDelivery(RedisDelayQueue<T> queue, QueueKeys partition, String id, T payload, TaskMeta meta) {
		this.queue = queue;
		this.partition = partition;
		this.id = id;
		this.payload = payload;
		this.meta = meta;
		this.lease = queue.leaseOf(id, meta);
	}

	@Override
	public String id() {
		return this.id;
	}

	@Override
	public T payload() {
		return this.payload;
	}

	@Override
	public int attempt() {
		return this.meta.attempt();
	}

	@Override
	public Instant dueAt() {
		return this.meta.dueAt();
	}

	@Override
	public Instant scheduledAt() {
		return this.meta.scheduledAt();
	}

	@Override
	public Map<String, String> traceContext() {
		return this.meta.traceContext();
	}

	@Override
	public Optional<LockLease> lease() {
		return Optional.ofNullable(this.lease);
	}

	/** The lock the task holds, as this delivery keeps it, or {@code null}. */
	@Nullable TaskLease taskLease() {
		return this.lease;
	}

	String token() {
		return this.meta.token();
	}

	RedisDelayQueue<T> queue() {
		return this.queue;
	}

	/** The keys of the partition the task was claimed from. */
	QueueKeys partition() {
		return this.partition;
	}

	@Override
	public boolean ack() {
		return this.queue.settle(Settlement.ACK, "", this);
	}

	@Override
	public boolean retry(Duration delay) {
		return this.queue.settle(Settlement.RETRY, Long.toString(QueueInput.delayMillis(delay)), this);
	}

	@Override
	public boolean deadLetter(String reason) {
		if (reason == null) {
			throw new IllegalArgumentException("Dead letter reason must not be null");
		}
		return this.queue.settle(Settlement.DEAD, reason, this);
	}

	@Override
	public boolean extendVisibility(Duration timeout) {
		return this.queue.settle(Settlement.EXTEND, Long.toString(QueueInput.timeoutMillis(timeout)), this);
	}

	@Override
	public String toString() {
		return "Delivery[queue=" + this.queue.name() + ", id=" + this.id + ", attempt=" + attempt() + "]";
	}

}
