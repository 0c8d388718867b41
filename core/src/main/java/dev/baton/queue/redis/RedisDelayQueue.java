package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import dev.baton.internal.ObservationSettings;
import dev.baton.internal.QueueInput;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LockLease;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.PartialSettlementException;
import dev.baton.queue.spi.TaskLease;
import dev.baton.queue.spi.WakeSignal;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DelayQueue} in Redis; every state change is one Lua script (see the scripts next to
 * this class for the key layout). A partitioned queue keeps each task in the partition its id
 * names ({@link QueuePartitions}); calls that span partitions send one script to each at once, so
 * they take one round trip however many partitions there are. The queue itself changes waiting
 * tasks and consumes; new tasks are {@link TaskScheduling}'s, views {@link QueueReads}', claims
 * {@link PartitionedClaims}', settling {@link Settlements}' and the locks tasks hold
 * {@link TaskLocks}'.
 *
 * @param <T> the payload type
 */
final class RedisDelayQueue<T> implements DelayQueue<T>, ConsumableQueue<T>, AdvanceableQueue {

	private final String name;

	private final QueuePartitions partitions;

	private final Duration visibilityTimeout;

	private final WakeChannels wakeChannels;

	/** Runs this queue's scripts on its partitions. */
	private final PartitionCalls calls;

	private final PartitionedClaims<T> claims;

	private final Settlements<T> settlements;

	private final TaskLocks locks;

	private final TaskScheduling<T> scheduling;

	private final QueueReads<T> reads;

	RedisDelayQueue(String name, QueuePartitions partitions, PartitionLayout layout, PayloadCodec<T> codec,
			Duration visibilityTimeout, DeadLetterRetention deadLetterRetention, DeadLetterReason deadLetterReason,
			WakeChannels wakeChannels, TimedScripts timedScripts, QueueMetrics metrics,
			ObservationSettings<TaskSchedulingObservationConvention> observations, @Nullable TokenLeases taskLocks,
			int storageFormat) {
		this.locks = new TaskLocks(name, taskLocks);
		this.name = name;
		this.partitions = partitions;
		this.calls = new PartitionCalls(name, layout, timedScripts, visibilityTimeout);
		this.visibilityTimeout = visibilityTimeout;
		this.wakeChannels = wakeChannels;
		this.scheduling = new TaskScheduling<>(name, partitions, codec, this.calls, metrics, observations, this.locks,
				storageFormat);
		this.reads = new QueueReads<>(name, partitions, codec, this.calls);
		this.settlements = new Settlements<>(this, name, this.calls);
		this.claims = new PartitionedClaims<>(this, name, partitions, this.calls, codec, metrics,
				PartitionRetention.of(deadLetterRetention, partitions.count()), deadLetterReason);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String schedule(T payload, Duration delay) {
		return this.scheduling.schedule(payload, delay);
	}

	@Override
	public boolean schedule(String id, T payload, Duration delay) {
		return this.scheduling.schedule(id, payload, delay);
	}

	@Override
	public boolean scheduleAt(String id, T payload, Instant dueAt) {
		return this.scheduling.scheduleAt(id, payload, dueAt);
	}

	@Override
	public String schedule(T payload, Duration delay, LockLease lease) {
		return this.scheduling.schedule(payload, delay, lease);
	}

	@Override
	public boolean schedule(String id, T payload, Duration delay, LockLease lease) {
		return this.scheduling.schedule(id, payload, delay, lease);
	}

	@Override
	public List<String> scheduleAll(Collection<NewTask<T>> tasks) {
		return this.scheduling.scheduleAll(tasks);
	}

	@Override
	public boolean reschedule(String id, Duration delay) {
		long delayMillis = QueueInput.delayMillis(delay);
		List<String> args = this.partitions.placing(QueueInput.id(id), Long.toString(delayMillis));
		Object meta = this.calls.call(QueueScript.RESCHEDULE, "reschedule task '" + id + "'",
				this.partitions.forId(id).forReschedule(), args).get(0);
		if (meta instanceof String rescheduled) {
			this.locks.rescheduled(id, TaskMeta.parse(rescheduled), Duration.ofMillis(delayMillis));
			return true;
		}
		return false;
	}

	@Override
	public long advance(@Nullable Duration by) {
		List<String> args = List.of((by != null) ? Long.toString(QueueInput.delayMillis(by)) : "all");
		long due = 0;
		for (List<Object> reply : this.calls.onEach(this.partitions.all(), QueueScript.ADVANCE, "advance queue", QueueKeys::forAdvance, args)) {
			due += (Long) reply.get(0);
		}
		return due;
	}

	@Override
	public boolean cancel(String id) {
		String checkedId = QueueInput.id(id);
		Object meta = this.calls.call(QueueScript.CANCEL, "cancel task '" + checkedId + "'",
				this.partitions.forId(checkedId).forCancel(PartitionCalls.newCallId()),
				this.partitions.placing(checkedId, this.calls.rememberMillis())).get(0);
		if (meta instanceof String cancelled) {
			this.locks.ended(checkedId, TaskMeta.parse(cancelled));
			return true;
		}
		return false;
	}

	@Override
	public Optional<ScheduledTask<T>> find(String id) {
		return this.reads.find(id);
	}

	@Override
	public List<ScheduledTask<T>> peek(int max) {
		return this.reads.peek(max);
	}

	@Override
	public TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken) {
		return this.reads.dueBetween(from, to, limit, pageToken);
	}

	@Override
	public long countDueBetween(Instant from, Instant to) {
		return this.reads.countDueBetween(from, to);
	}

	@Override
	public QueueStats stats() {
		return this.reads.stats();
	}

	@Override
	public List<DeadLetter<T>> deadLetters(int max) {
		return this.reads.deadLetters(max);
	}

	@Override
	public List<Delivery<T>> poll(int max) {
		return claim(max, this.visibilityTimeout).deliveries();
	}

	@Override
	public Claim<T> claim(int max, Duration visibilityTimeout) {
		Claim<T> claim = this.claims.claim(max, visibilityTimeout);
		this.locks.keep(claim.deliveries(), visibilityTimeout);
		return claim;
	}

	@Override
	public List<Delivery<T>> extendVisibility(Collection<? extends Delivery<T>> deliveries,
			Duration visibilityTimeout) {
		List<Delivery<T>> stale = this.settlements.extendVisibility(deliveries, visibilityTimeout);
		// Stale ones too: their task may hold the lock elsewhere (never shortened), or be gone with it (reported).
		this.locks.keep(deliveries, visibilityTimeout);
		this.locks.settled(stale, false, List.of());
		return stale;
	}

	@Override
	public List<Delivery<T>> acknowledge(Collection<? extends Delivery<T>> deliveries) {
		return settleAll(Settlement.ACK, deliveries);
	}

	/** Settles deliveries at once, then releases the locks of the tasks that ended or leaves them to the task. */
	private List<Delivery<T>> settleAll(Settlement settlement, Collection<? extends Delivery<T>> deliveries) {
		boolean ends = settlement == Settlement.ACK;
		try {
			List<Delivery<T>> stale = this.settlements.settle(settlement, "", deliveries);
			this.locks.settled(deliveries, ends, stale);
			return stale;
		}
		catch (PartialSettlementException ex) {
			List<Delivery<T>> notSettled = new ArrayList<>(ex.<T>stale());
			notSettled.addAll(ex.<T>unsettled());
			this.locks.settled(deliveries, ends, notSettled);
			throw ex;
		}
	}

	@Override
	public int partitionCount() {
		return this.partitions.count();
	}

	@Override
	public Object partitionOf(Delivery<T> delivery) {
		return (delivery instanceof RedisDelivery<T> redisDelivery) ? redisDelivery.partition() : this;
	}

	@Override
	public void handBack(Collection<? extends Delivery<T>> deliveries) {
		// Due again at once: the lock is kept for its lease, for the next delivery.
		this.locks.keep(deliveries, Duration.ZERO);
		settleAll(Settlement.HAND_BACK, deliveries);
	}

	@Override
	public AutoCloseable onSignal(Consumer<WakeSignal> listener) {
		return this.wakeChannels.listen(this.partitions.all().stream().map(QueueKeys::wake).toList(), this.claims.consumerId(),
				listener);
	}

	Settlements<T> settlements() {
		return this.settlements;
	}

	/** Settles one delivery, and keeps, releases or leaves the lock its task holds; {@code false} if it was stale. */
	boolean settle(Settlement settlement, String argument, RedisDelivery<T> delivery) {
		List<RedisDelivery<T>> one = List.of(delivery);
		if (settlement == Settlement.RETRY) {
			// Due again after the backoff: the lock is kept that long plus its lease.
			this.locks.keep(one, Duration.ofMillis(Long.parseLong(argument)));
		}
		boolean current = this.settlements.settleOne(settlement, argument, delivery);
		List<RedisDelivery<T>> stale = current ? List.of() : one;
		if (settlement == Settlement.EXTEND) {
			this.locks.keep(one, Duration.ofMillis(Long.parseLong(argument)));
			this.locks.settled(stale, false, List.of());
		}
		else {
			this.locks.settled(one, settlement == Settlement.ACK || settlement == Settlement.DEAD, stale);
		}
		return current;
	}

	TaskLocks taskLocks() {
		return this.locks;
	}

	/** The lease of a claimed task as its delivery keeps it, or {@code null}. */
	@Nullable TaskLease leaseOf(String id, TaskMeta meta) {
		return this.locks.leaseOf(id, meta);
	}

	@Override
	public boolean redrive(String id) {
		String checkedId = QueueInput.id(id);
		return PartitionCalls.isOne(this.calls.call(QueueScript.REDRIVE, "redrive task '" + checkedId + "'",
				this.partitions.forId(checkedId).forRedrive(), this.partitions.placing(checkedId)).get(0));
	}

	@Override
	public boolean purgeDeadLetter(String id) {
		String checkedId = QueueInput.id(id);
		return PartitionCalls.isOne(this.calls.call(QueueScript.PURGE_DEAD_LETTER, "purge dead letter '" + checkedId + "'",
				this.partitions.forId(checkedId).forPurgeDeadLetter(), this.partitions.placing(checkedId)).get(0));
	}

	@Override
	public String toString() {
		return "RedisDelayQueue[" + this.name + "]";
	}

}
