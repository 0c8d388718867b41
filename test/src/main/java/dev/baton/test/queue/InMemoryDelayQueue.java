package dev.baton.test.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.baton.internal.DueWindow;
import dev.baton.internal.QueueInput;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.TaskLease;
import dev.baton.queue.spi.WakeSignal;
import dev.baton.test.queue.QueueState.Claimed;
import dev.baton.test.queue.QueueState.NewEntry;
import dev.baton.test.queue.QueueState.Settlement;
import dev.baton.test.queue.QueueState.Stored;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * A queue of an {@link InMemoryDelayQueues}: one instance's view of a {@link QueueState}, writing
 * and reading its payloads as JSON, as Baton's Redis queue does. A task scheduled with a lease
 * stores the token it was handed over to, and its lock is kept, released or left to the task by
 * the same steps as on Redis: kept while it waits and while a delivery holds it, released when it
 * ends for good.
 *
 * @param <T> the payload type
 */
final class InMemoryDelayQueue<T> implements DelayQueue<T>, ConsumableQueue<T>, AdvanceableQueue {

	private static final Log logger = LogFactory.getLog(InMemoryDelayQueue.class);

	private final QueueState state;

	private final String name;

	private final Class<T> type;

	private final JsonMapper jsonMapper;

	private final ObjectReader reader;

	private final Duration visibilityTimeout;

	/** The lock manager that tasks' locks are kept and released with, or {@code null} for none. */
	private final Supplier<@Nullable TokenLeases> leases;

	InMemoryDelayQueue(QueueState state, String name, Class<T> type, JsonMapper jsonMapper,
			Duration visibilityTimeout, Supplier<@Nullable TokenLeases> leases) {
		this.state = state;
		this.name = name;
		this.type = type;
		this.jsonMapper = jsonMapper;
		this.reader = jsonMapper.readerFor(type);
		this.visibilityTimeout = visibilityTimeout;
		this.leases = leases;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String schedule(T payload, Duration delay) {
		String id = UUID.randomUUID().toString();
		schedule(id, payload, delay);
		return id;
	}

	@Override
	public boolean schedule(String id, T payload, Duration delay) {
		String checkedId = QueueInput.id(id);
		return this.state.schedule(List.of(new NewEntry(checkedId, write(checkedId, payload), QueueInput.delayMillis(delay),
				null))).get(0);
	}

	@Override
	public boolean scheduleAt(String id, T payload, Instant dueAt) {
		String checkedId = QueueInput.id(id);
		return this.state.schedule(List.of(new NewEntry(checkedId, write(checkedId, payload), 0, Instant.ofEpochMilli(QueueInput.dueAtMillis(dueAt)))))
			.get(0);
	}

	@Override
	public String schedule(T payload, Duration delay, LockLease lease) {
		String id = UUID.randomUUID().toString();
		schedule(id, payload, delay, lease);
		return id;
	}

	/** Hands the lease over to a token stored with the task, then keeps the lock until the task is due plus its lease. */
	@Override
	public boolean schedule(String id, T payload, Duration delay, LockLease lease) {
		// Checked and written before the hand-over, so that bad input leaves the lease as it is.
		String checkedId = QueueInput.id(id);
		long delayMillis = QueueInput.delayMillis(delay);
		String json = write(checkedId, payload);
		TokenLeases leases = this.leases.get();
		if (leases == null) {
			throw new UnsupportedOperationException("Queue '" + this.name + "' cannot schedule tasks that hold a "
					+ "lock: its InMemoryDelayQueues were given no lock manager");
		}
		if (lease == null) {
			throw new IllegalArgumentException("Lease must not be null");
		}
		LeaseToken token = lease.handOver();
		if (!this.state.schedule(List.of(new NewEntry(checkedId, json, delayMillis, null, token))).get(0)) {
			leases.takeBack(lease, token);
			return false;
		}
		keepWaiting(token, delayMillis);
		return true;
	}

	@Override
	public List<String> scheduleAll(Collection<NewTask<T>> tasks) {
		// Every task is checked and written before the first is stored, so bad input stores nothing.
		List<NewEntry> entries = new ArrayList<>(tasks.size());
		for (NewTask<T> task : tasks) {
			if (task == null) {
				throw new IllegalArgumentException("Task must not be null");
			}
			String id = (task.id() != null) ? QueueInput.id(task.id()) : UUID.randomUUID().toString();
			entries.add(new NewEntry(id, write(id, task.payload()), QueueInput.delayMillis(task.delay()), null));
		}
		List<Boolean> scheduled = this.state.schedule(entries);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < entries.size(); i++) {
			if (scheduled.get(i)) {
				ids.add(entries.get(i).id());
			}
		}
		return ids;
	}

	@Override
	public boolean reschedule(String id, Duration delay) {
		String checkedId = QueueInput.id(id);
		long delayMillis = QueueInput.delayMillis(delay);
		Stored moved = this.state.reschedule(checkedId, delayMillis);
		if (moved != null) {
			keepWaiting(moved.lease(), delayMillis);
		}
		return moved != null;
	}

	@Override
	public boolean cancel(String id) {
		Stored cancelled = this.state.cancel(QueueInput.id(id));
		if (cancelled != null) {
			ended(cancelled.lease());
		}
		return cancelled != null;
	}

	/** Keeps the lock of a task that waits {@code delayMillis}, if it holds one, until it is due plus its lease. */
	private void keepWaiting(@Nullable LeaseToken token, long delayMillis) {
		TokenLeases leases = this.leases.get();
		if (token != null && leases != null) {
			leases.extend(token, TaskLease.keepTime(leases, token, Duration.ofMillis(delayMillis)));
		}
	}

	/** Releases the lock of a task that ended for good without a delivery, if it holds one. */
	private void ended(@Nullable LeaseToken token) {
		TokenLeases leases = this.leases.get();
		if (token != null && leases != null) {
			leases.release(token);
		}
	}

	@Override
	public Optional<ScheduledTask<T>> find(String id) {
		Stored task = this.state.find(QueueInput.id(id));
		return Optional.ofNullable(task).map(this::view);
	}

	@Override
	public List<ScheduledTask<T>> peek(int max) {
		return this.state.peek(QueueInput.readMax(max)).stream().map(this::view).toList();
	}

	@Override
	public TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken) {
		DueWindow window = DueWindow.of(this.name, from, to, limit, pageToken);
		List<Stored> tasks = this.state.dueBetween(window.range(), window.after(), limit + 1);
		List<Stored> page = tasks.subList(0, Math.min(limit, tasks.size()));
		Stored last = page.isEmpty() ? null : page.get(page.size() - 1);
		String next = (tasks.size() > limit && last != null)
				? window.nextPageToken(new DueWindow.Cursor(last.dueAt().toEpochMilli(), last.id())) : null;
		return new TaskPage<>(page.stream().map(this::view).toList(), next);
	}

	@Override
	public long countDueBetween(Instant from, Instant to) {
		return this.state.countDueBetween(DueWindow.Range.of(from, to));
	}

	/** A stored task as {@code find}, {@code peek} and {@code dueBetween} show it: one whose payload cannot be read, as such. */
	private ScheduledTask<T> view(Stored task) {
		T payload = readOrNull(task.json());
		return new ScheduledTask<>(task.id(), payload, task.dueAt(), task.scheduledAt(), task.inFlight(),
				(payload != null) ? null : task.json(), (task.lease() != null) ? task.lease().name() : null);
	}

	@Override
	public List<Delivery<T>> poll(int max) {
		return claim(max, this.visibilityTimeout).deliveries();
	}

	@Override
	public Claim<T> claim(int max, Duration visibilityTimeout) {
		Claimed claimed = this.state.claim(QueueInput.max(max), QueueInput.timeoutMillis(visibilityTimeout));
		List<Delivery<T>> deliveries = new ArrayList<>(claimed.tasks().size());
		for (Stored task : claimed.tasks()) {
			T payload;
			try {
				payload = read(task.json());
			}
			catch (JacksonException | IllegalArgumentException ex) {
				// A poison payload would fail on every delivery: park it at once, as the Redis queue does.
				String reason = "Payload cannot be read as " + this.type.getName() + ": "
						+ DeadLetterReason.EXCEPTION_CLASS.of(ex);
				this.state.settle(Settlement.DEAD, reason, List.of(new QueueState.Token(task.id(), task.token())));
				ended(task.lease());
				logger.warn("Task '" + task.id() + "' of queue '" + this.name + "' has a payload that cannot be read as "
						+ this.type.getName() + "; it was dead-lettered with its stored JSON: " + reason);
				continue;
			}
			TaskLease lock = lockOf(task);
			if (lock != null) {
				lock.keepFor(visibilityTimeout);
			}
			deliveries.add(new InMemoryDelivery<>(this, task, payload, lock));
		}
		long nextDueIn = claimed.nextDueInMillis();
		return new Claim<>(deliveries, (nextDueIn < 0) ? null : Duration.ofMillis(nextDueIn), claimed.now());
	}

	@Override
	public List<Delivery<T>> extendVisibility(Collection<? extends Delivery<T>> deliveries,
			Duration visibilityTimeout) {
		return settleAll(Settlement.EXTEND, Long.toString(QueueInput.timeoutMillis(visibilityTimeout)), deliveries);
	}

	@Override
	public List<Delivery<T>> acknowledge(Collection<? extends Delivery<T>> deliveries) {
		return settleAll(Settlement.ACK, "", deliveries);
	}

	@Override
	public void handBack(Collection<? extends Delivery<T>> deliveries) {
		settleAll(Settlement.HAND_BACK, "", deliveries);
	}

	/** The lock of a claimed task as its delivery holds it, or {@code null} if it holds none or there is no lock manager. */
	private @Nullable TaskLease lockOf(Stored task) {
		TokenLeases leases = this.leases.get();
		return (task.lease() != null && leases != null) ? new TaskLease(task.lease(), leases, "task '" + task.id() + "' of queue '" + this.name + "'") : null;
	}

	boolean settle(Settlement settlement, String argument, InMemoryDelivery<T> delivery) {
		return settleAll(settlement, argument, List.of(delivery)).isEmpty();
	}

	/** Settles the deliveries at once, keeping, releasing or leaving the locks of their tasks; returns the stale ones. */
	private List<Delivery<T>> settleAll(Settlement settlement, String argument,
			Collection<? extends Delivery<T>> deliveries) {
		List<InMemoryDelivery<T>> ours = new ArrayList<>(deliveries.size());
		for (Delivery<T> delivery : deliveries) {
			if (!(delivery instanceof InMemoryDelivery<T> inMemory) || inMemory.queue().state != this.state) {
				throw new IllegalArgumentException(delivery + " was not claimed from queue '" + this.name + "'");
			}
			ours.add(inMemory);
		}
		String stored = (settlement == Settlement.DEAD) ? QueueInput.reason(argument) : argument;
		Duration wait = (settlement == Settlement.RETRY || settlement == Settlement.EXTEND)
				? Duration.ofMillis(Long.parseLong(argument)) : Duration.ZERO;
		if (settlement == Settlement.RETRY || settlement == Settlement.HAND_BACK) {
			// Before the task is due again: its lock is kept until then plus its lease.
			ours.forEach((delivery) -> keep(delivery, wait));
		}
		List<Boolean> current = this.state.settle(settlement, stored,
				ours.stream().map(InMemoryDelivery::token).toList());
		List<Delivery<T>> stale = new ArrayList<>();
		for (int i = 0; i < ours.size(); i++) {
			if (!current.get(i)) {
				stale.add(ours.get(i));
			}
			settled(ours.get(i).lock(), settlement, wait, current.get(i));
		}
		return stale;
	}

	private static void keep(InMemoryDelivery<?> delivery, Duration wait) {
		if (delivery.lock() != null) {
			delivery.lock().keepFor(wait);
		}
	}

	/**
	 * After a delivery was settled: an acknowledgement or dead letter of the current delivery
	 * releases the task's lock, an extension keeps it, anything else leaves it to the task.
	 */
	private static void settled(@Nullable TaskLease lock, Settlement settlement, Duration wait, boolean current) {
		if (lock == null) {
			return;
		}
		if (settlement == Settlement.EXTEND) {
			// A stale one too: a lock is never shortened, and one gone with its task is found lost.
			lock.keepFor(wait);
		}
		if (current && (settlement == Settlement.ACK || settlement == Settlement.DEAD)) {
			lock.end();
		}
		else if (!current || settlement != Settlement.EXTEND) {
			lock.leave();
		}
	}

	@Override
	public AutoCloseable onSignal(Consumer<WakeSignal> listener) {
		return this.state.subscribe(listener);
	}

	@Override
	public long advance(@Nullable Duration by) {
		if (by != null && by.isNegative()) {
			throw new IllegalArgumentException("Duration to advance by must not be negative, was " + by);
		}
		return this.state.advance((by != null) ? QueueInput.delayMillis(by) : null);
	}

	@Override
	public QueueStats stats() {
		return this.state.stats();
	}

	@Override
	public List<DeadLetter<T>> deadLetters(int max) {
		return this.state.deadLetters(QueueInput.readMax(max)).stream().map((dead) -> {
			T payload = readOrNull(dead.json());
			return new DeadLetter<>(dead.id(), payload, dead.attempts(), dead.reason(), dead.failedAt(),
					(payload != null) ? null : dead.json());
		}).toList();
	}

	@Override
	public boolean redrive(String id) {
		return this.state.redrive(QueueInput.id(id));
	}

	@Override
	public boolean purgeDeadLetter(String id) {
		return this.state.purge(QueueInput.id(id));
	}

	/** The payload as JSON, as the Redis queue stores it. */
	private String write(String id, T payload) {
		QueueInput.payload(payload);
		try {
			return this.jsonMapper.writeValueAsString(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Payload of task '" + id + "' of type " + payload.getClass().getName()
					+ " cannot be written as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	private T read(String json) {
		T payload;
		try {
			payload = this.reader.readValue(json);
		}
		catch (JacksonException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Payload cannot be read as " + this.type.getName() + ": " + ex, ex);
		}
		if (payload == null) {
			throw new IllegalArgumentException("Payload is JSON null, not a " + this.type.getName());
		}
		return payload;
	}

	private @Nullable T readOrNull(String json) {
		try {
			return read(json);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return "InMemoryDelayQueue[" + this.name + "]";
	}

}
