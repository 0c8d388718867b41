package dev.baton.test.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.baton.internal.QueueInput;
import dev.baton.lock.LockLease;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.TaskLease;
import dev.baton.test.queue.QueueState.Settlement;
import dev.baton.test.queue.QueueState.Stored;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of a task of an {@link InMemoryDelayQueue}, identified by the token its claim gave
 * it: it settles the task only while the task is still in flight with that token.
 *
 * @param <T> the payload type
 */
final class InMemoryDelivery<T> implements Delivery<T> {

	private final InMemoryDelayQueue<T> queue;

	private final Stored task;

	private final T payload;

	private final @Nullable TaskLease lock;

	InMemoryDelivery(InMemoryDelayQueue<T> queue, Stored task, T payload, @Nullable TaskLease lock) {
		this.queue = queue;
		this.task = task;
		this.payload = payload;
		this.lock = lock;
	}

	/** The lock its task holds, as this delivery holds it, or {@code null}. */
	@Nullable TaskLease lock() {
		return this.lock;
	}

	InMemoryDelayQueue<T> queue() {
		return this.queue;
	}

	QueueState.Token token() {
		return new QueueState.Token(this.task.id(), this.task.token());
	}

	@Override
	public String id() {
		return this.task.id();
	}

	@Override
	public T payload() {
		return this.payload;
	}

	@Override
	public int attempt() {
		return this.task.attempt();
	}

	@Override
	public Instant dueAt() {
		return this.task.dueAt();
	}

	@Override
	public Instant scheduledAt() {
		return this.task.scheduledAt();
	}

	@Override
	public Optional<LockLease> lease() {
		return Optional.ofNullable(this.lock);
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
		return "Delivery[queue=" + this.queue.name() + ", id=" + id() + ", attempt=" + attempt() + "] (in memory)";
	}

}
