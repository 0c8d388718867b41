package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.WakeSignal;
import org.jspecify.annotations.Nullable;

/**
 * The real queues as the listener container consumes them, with faults injected on the
 * container's side of the calls: a claim, acknowledgement, extension or hand-back can throw any
 * {@link Throwable} (an {@link Error} included), a claim can return late, after Redis already
 * claimed the tasks, and an extension can be slow.
 */
final class FaultyQueues {

	/** The calls a fault can be injected into. */
	enum Call {

		CLAIM, ACKNOWLEDGE, EXTEND, HAND_BACK

	}

	private final Map<Call, AtomicInteger> remaining = new ConcurrentHashMap<>();

	private final Map<Call, Supplier<Throwable>> faults = new ConcurrentHashMap<>();

	private final Map<Call, AtomicInteger> calls = new ConcurrentHashMap<>();

	private final Set<String> queues;

	private volatile Duration claimReturnsAfter = Duration.ZERO;

	private volatile Duration extensionTakes = Duration.ZERO;

	/**
	 * @param queues the names of the queues the faults apply to; all when none is given
	 */
	FaultyQueues(String... queues) {
		this.queues = Set.of(queues);
	}

	/** Let the next {@code times} calls fail with what {@code fault} makes. */
	FaultyQueues fail(Call call, int times, Supplier<Throwable> fault) {
		this.faults.put(call, fault);
		this.remaining.put(call, new AtomicInteger(times));
		return this;
	}

	/** Let every claim return only after this delay, once Redis has claimed its tasks. */
	FaultyQueues delayClaims(Duration delay) {
		this.claimReturnsAfter = delay;
		return this;
	}

	/** Let every visibility extension take this long before it reaches Redis. */
	FaultyQueues delayExtensions(Duration delay) {
		this.extensionTakes = delay;
		return this;
	}

	int calls(Call call) {
		return this.calls.computeIfAbsent(call, (key) -> new AtomicInteger()).get();
	}

	private void enter(Call call) {
		this.calls.computeIfAbsent(call, (key) -> new AtomicInteger()).incrementAndGet();
		AtomicInteger left = this.remaining.get(call);
		if (left != null && left.getAndDecrement() > 0) {
			Throwable fault = this.faults.get(call).get();
			if (fault instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) fault;
		}
	}

	/** The given queues as seen through these faults. */
	DelayQueues wrap(DelayQueues queues) {
		return new DelayQueues() {

			@Override
			@SuppressWarnings("unchecked")
			public <T> DelayQueue<T> get(String name, Class<T> payloadType) {
				DelayQueue<T> queue = queues.get(name, payloadType);
				boolean faulty = FaultyQueues.this.queues.isEmpty() || FaultyQueues.this.queues.contains(name);
				return faulty ? new FaultyQueue<>(queue) : queue;
			}

		};
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private final class FaultyQueue<T> implements DelayQueue<T>, ConsumableQueue<T>, AdvanceableQueue {

		private final DelayQueue<T> queue;

		private final ConsumableQueue<T> consumable;

		@SuppressWarnings("unchecked")
		FaultyQueue(DelayQueue<T> queue) {
			this.queue = queue;
			this.consumable = (ConsumableQueue<T>) queue;
		}

		@Override
		public Claim<T> claim(int max, Duration visibilityTimeout) {
			enter(Call.CLAIM);
			Claim<T> claim = this.consumable.claim(max, visibilityTimeout);
			if (!claim.deliveries().isEmpty()) {
				sleep(FaultyQueues.this.claimReturnsAfter);
			}
			return claim;
		}

		@Override
		public List<Delivery<T>> extendVisibility(Collection<? extends Delivery<T>> deliveries,
				Duration visibilityTimeout) {
			enter(Call.EXTEND);
			sleep(FaultyQueues.this.extensionTakes);
			return this.consumable.extendVisibility(deliveries, visibilityTimeout);
		}

		@Override
		public List<Delivery<T>> acknowledge(Collection<? extends Delivery<T>> deliveries) {
			enter(Call.ACKNOWLEDGE);
			return this.consumable.acknowledge(deliveries);
		}

		@Override
		public void handBack(Collection<? extends Delivery<T>> deliveries) {
			enter(Call.HAND_BACK);
			this.consumable.handBack(deliveries);
		}

		@Override
		public AutoCloseable onSignal(Consumer<WakeSignal> listener) {
			return this.consumable.onSignal(listener);
		}

		@Override
		public String name() {
			return this.queue.name();
		}

		@Override
		public String schedule(T payload, Duration delay) {
			return this.queue.schedule(payload, delay);
		}

		@Override
		public boolean schedule(String id, T payload, Duration delay) {
			return this.queue.schedule(id, payload, delay);
		}

		@Override
		public boolean scheduleAt(String id, T payload, Instant dueAt) {
			return this.queue.scheduleAt(id, payload, dueAt);
		}

		@Override
		public List<String> scheduleAll(Collection<NewTask<T>> tasks) {
			return this.queue.scheduleAll(tasks);
		}

		@Override
		public boolean reschedule(String id, Duration delay) {
			return this.queue.reschedule(id, delay);
		}

		@Override
		public TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken) {
			return this.queue.dueBetween(from, to, limit, pageToken);
		}

		@Override
		public long countDueBetween(Instant from, Instant to) {
			return this.queue.countDueBetween(from, to);
		}

		@Override
		public long advance(@Nullable Duration by) {
			return ((AdvanceableQueue) this.queue).advance(by);
		}

		@Override
		public boolean cancel(String id) {
			return this.queue.cancel(id);
		}

		@Override
		public Optional<ScheduledTask<T>> find(String id) {
			return this.queue.find(id);
		}

		@Override
		public List<ScheduledTask<T>> peek(int max) {
			return this.queue.peek(max);
		}

		@Override
		public List<Delivery<T>> poll(int max) {
			return this.queue.poll(max);
		}

		@Override
		public QueueStats stats() {
			return this.queue.stats();
		}

		@Override
		public List<DeadLetter<T>> deadLetters(int max) {
			return this.queue.deadLetters(max);
		}

		@Override
		public boolean redrive(String id) {
			return this.queue.redrive(id);
		}

		@Override
		public boolean purgeDeadLetter(String id) {
			return this.queue.purgeDeadLetter(id);
		}

	}

}
