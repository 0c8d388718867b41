package dev.baton.test.queue;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.lock.LockManager;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.internal.QueueInput;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link DelayQueues} that keep their tasks in memory, for fast unit tests of code that schedules
 * Baton delayed tasks, and of {@code @DelayedTask} handlers, without Redis. Its queues pass the
 * same {@link dev.baton.test.contract.DelayQueueContractTests} as Baton's Redis queues, and Baton's
 * listener container consumes them unchanged
 * ({@code DelayedTaskListenerRegistry.builder(queues)}, or a bean of this type in place of the
 * auto-configured one): ids scheduled once while they wait or are in flight, due order (tasks due
 * at the same instant in the order they were scheduled), attempts, delivery tokens (a stale
 * delivery cannot settle a redelivered task), visibility timeouts and redelivery, retry,
 * hand-back, dead letters with {@code redrive} and {@code purgeDeadLetter}, {@code cancel},
 * {@code reschedule}, {@code find}, {@code peek} and {@code stats}. Payloads are stored as JSON
 * written with the given {@link JsonMapper} and read back for every delivery, so a payload that
 * Jackson cannot write fails to schedule, and one it cannot read is dead-lettered, as on Redis.
 *
 * <p><strong>Tasks that hold a lock.</strong> Given a lock manager ({@link #lockManager}, such as
 * an {@link dev.baton.test.lock.InMemoryLockManager} on the same clock), its queues schedule tasks
 * that hold a lock until they end ({@code schedule(..., LockLease)}), as Baton's Redis queues do:
 * the lease is handed over to the task, which keeps the lock while it waits, while a delivery
 * holds it ({@code Delivery.lease()}) and through retries and redeliveries, and releases it when
 * it is acknowledged, dead-lettered or cancelled; {@code find} and {@code peek} name its lock.
 *
 * <pre class="code">
 * AtomicReference&lt;Instant&gt; now = new AtomicReference&lt;&gt;(Instant.parse("2026-01-01T00:00:00Z"));
 * InMemoryDelayQueues queues = new InMemoryDelayQueues(now::get);
 * DelayQueue&lt;Long&gt; timeouts = queues.get("order-timeout", Long.class);
 * timeouts.schedule("42", 42L, Duration.ofMinutes(30));
 * queues.advance(Duration.ofMinutes(30)); // due now; consumers are woken at once
 * </pre>
 *
 * <p><strong>Time.</strong> Due times and visibility timeouts are measured on the given
 * {@link InstantSource}, as they are on the Redis server's clock. Two ways make a task due
 * without waiting: {@link #advance} moves every waiting task's due time earlier, as
 * {@link QueueClock} does on Redis (tasks in flight are left alone, whatever the clock), or the
 * test moves a clock of its own and calls {@link #wakeConsumers()}; moving the clock also runs
 * out the visibility of deliveries in flight, which are then delivered again unless extended.
 * Every change that Redis would announce on a queue's wake channel (a task that falls due first, a
 * retry, a hand-back, a redrive, {@code advance}) wakes the queue's consumers at once, through
 * {@code WakeSignal.Due} with no due time, so that they claim now; the claim tells them when to
 * look again.
 *
 * <p><strong>Instances.</strong> One object is one instance of the application. Queues made
 * with {@link #anotherInstance} share their tasks and wake-ups with this one, so that a test can
 * play a producer and a consumer, or a crashed consumer whose tasks another one redelivers.
 *
 * <p><strong>Not simulated:</strong> other processes (the tasks live in this JVM only, and
 * wake-ups do not cross JVMs), Redis failures, timeouts, partitions and failover (no call ever
 * fails, so {@code PartiallyScheduledException} and {@code QueueUnavailableException} are never
 * thrown), partitioned queues (every queue has one partition), memory limits (no maximum payload
 * size, no eviction), dead-letter retention (dead letters stay until redriven or purged), the
 * {@code PayloadEnvelope}, strict payload reading, the trace context stored with a task, the
 * {@code taken} signals that let idle consumers of several instances leave a claim to the first,
 * and queue metrics and observations.
 */
public final class InMemoryDelayQueues implements DelayQueues {

	/** The visibility timeout of {@link DelayQueue#poll(int)}: 30 s, as Baton's default. */
	public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);

	private final Map<String, QueueState> states;

	private final InstantSource clock;

	private final JsonMapper jsonMapper;

	private final Map<String, InMemoryDelayQueue<?>> queues = new ConcurrentHashMap<>();

	private volatile @Nullable TokenLeases lockManager;

	/** Queues whose tasks fall due in real time, with payloads written by a default {@link JsonMapper}. */
	public InMemoryDelayQueues() {
		this(InstantSource.system());
	}

	/**
	 * Queues whose tasks fall due as the given clock moves, with payloads written by a default
	 * {@link JsonMapper}.
	 * @param clock the clock that due times are measured on, such as a {@link java.time.Clock} or
	 * an {@code InstantSource} lambda over an instant that the test moves
	 */
	public InMemoryDelayQueues(InstantSource clock) {
		this(clock, JsonMapper.builder().build());
	}

	/**
	 * Queues whose tasks fall due as the given clock moves.
	 * @param clock the clock that due times are measured on
	 * @param jsonMapper writes and reads payloads: the application's mapper, so that a payload it
	 * cannot handle fails here as it would on Redis
	 */
	public InMemoryDelayQueues(InstantSource clock, JsonMapper jsonMapper) {
		this(new ConcurrentHashMap<>(), requireNonNull(clock, "Clock"), requireNonNull(jsonMapper, "JSON mapper"));
	}

	private InMemoryDelayQueues(Map<String, QueueState> states, InstantSource clock, JsonMapper jsonMapper) {
		this.states = states;
		this.clock = clock;
		this.jsonMapper = jsonMapper;
	}

	private static <T> T requireNonNull(@Nullable T value, String what) {
		if (value == null) {
			throw new IllegalArgumentException(what + " must not be null");
		}
		return value;
	}

	/**
	 * Another instance of the application: queues over the same tasks and clock, with the same
	 * JSON mapper and lock manager, whose consumers are woken by this instance's changes and the
	 * other way round.
	 * @return the new instance
	 */
	public InMemoryDelayQueues anotherInstance() {
		InMemoryDelayQueues instance = new InMemoryDelayQueues(this.states, this.clock, this.jsonMapper);
		instance.lockManager = this.lockManager;
		return instance;
	}

	/**
	 * Let tasks of these queues hold locks of this lock manager
	 * ({@link DelayQueue#schedule(String, Object, Duration, dev.baton.lock.LockLease)}), as
	 * {@code RedisDelayQueues.builder(...).lockManager(...)} does; without one, scheduling a task
	 * with a lease is refused, and the locks of tasks scheduled with one by another instance run
	 * out instead of being released. Applies to the queues already obtained too.
	 * @param lockManager a lock manager over the same locks as the leases handed to tasks, such as
	 * an {@link dev.baton.test.lock.InMemoryLockManager}
	 * @return these queues
	 * @throws IllegalArgumentException if the lock manager cannot give its locks to tasks (it does
	 * not implement {@link TokenLeases})
	 */
	public InMemoryDelayQueues lockManager(LockManager lockManager) {
		if (!(lockManager instanceof TokenLeases tokenLeases)) {
			String type = (lockManager != null) ? lockManager.getClass().getName() : "null";
			throw new IllegalArgumentException("Lock manager " + type + " cannot give its locks to tasks: it does not "
					+ "implement " + TokenLeases.class.getName());
		}
		this.lockManager = tokenLeases;
		return this;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> DelayQueue<T> get(String name, Class<T> payloadType) {
		QueueInput.queueName(name);
		if (payloadType == null) {
			throw new IllegalArgumentException("Payload type of queue '" + name + "' must not be null");
		}
		return (DelayQueue<T>) this.queues.computeIfAbsent(name + "\u0000" + payloadType.getName(),
				(key) -> new InMemoryDelayQueue<>(state(name), name, payloadType, this.jsonMapper,
						DEFAULT_VISIBILITY_TIMEOUT, () -> this.lockManager));
	}

	private QueueState state(String name) {
		return this.states.computeIfAbsent(name, (key) -> new QueueState(name, this.clock));
	}

	/**
	 * Moves every waiting task of every queue {@code by} earlier, in the same order, and wakes the
	 * consumers, as {@link QueueClock#advance} does for one queue: tasks in flight and tasks
	 * scheduled afterwards are not moved, and the clock is not changed.
	 * @param by how far to move the due times, not negative, at most {@link DelayQueue#MAX_DELAY}
	 * @return how many waiting tasks are due now, over all queues
	 */
	public long advance(Duration by) {
		if (by == null || by.isNegative()) {
			throw new IllegalArgumentException("Duration to advance by must not be null or negative, was " + by);
		}
		long millis = QueueInput.delayMillis(by);
		return this.states.values().stream().mapToLong((state) -> state.advance(millis)).sum();
	}

	/**
	 * Makes every waiting task of every queue due now, in due order, and wakes the consumers.
	 * @return how many waiting tasks are due now, over all queues
	 */
	public long runAllNow() {
		return this.states.values().stream().mapToLong((state) -> state.advance(null)).sum();
	}

	/**
	 * Makes the consumers of every queue, of every instance, claim at once: call it after moving
	 * the clock, so that the tasks now due (and the deliveries whose visibility ran out) are
	 * claimed without waiting for the consumers' next poll.
	 */
	public void wakeConsumers() {
		this.states.values().forEach(QueueState::wake);
	}

	@Override
	public String toString() {
		return "InMemoryDelayQueues[" + this.states.keySet() + "]";
	}

}
