package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.baton.internal.DueWindow;
import dev.baton.internal.ObservationSettings;
import dev.baton.internal.QueueInput;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultTaskSchedulingObservationConvention;
import dev.baton.observation.TaskSchedulingContext;
import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.queue.QueueStats;
import dev.baton.queue.QueueUnavailableException;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.TaskPage;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.PartialSettlementException;
import dev.baton.queue.spi.WakeSignal;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;


/**
 * A {@link DelayQueue} in Redis; every state change is one Lua script (see the scripts next to
 * this class for the key layout). A partitioned queue keeps each task in the partition its id
 * names ({@link QueuePartitions}); calls that span partitions send one script to each at once, so
 * they take one round trip however many partitions there are.
 *
 * @param <T> the payload type
 */
final class RedisDelayQueue<T> implements DelayQueue<T>, ConsumableQueue<T>, AdvanceableQueue {

	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	/** Tasks per script call in {@link #scheduleAll}, so that one call does not stall Redis. */
	private static final int SCHEDULE_BATCH = 1000;

	private final String name;

	private final QueuePartitions partitions;

	private final PayloadCodec<T> codec;

	private final Duration visibilityTimeout;

	private final DeadLetterReason deadLetterReason;

	private final WakeChannels wakeChannels;

	/** Runs this queue's scripts on its partitions. */
	private final PartitionCalls calls;

	private final PartitionedClaims<T> claims;

	private final Settlements<T> settlements;

	private final QueueMetrics metrics;

	private final ObservationSettings<TaskSchedulingObservationConvention> observations;

	private final TaskLocks locks;

	RedisDelayQueue(String name, QueuePartitions partitions, PartitionLayout layout, PayloadCodec<T> codec,
			Duration visibilityTimeout, DeadLetterRetention deadLetterRetention, DeadLetterReason deadLetterReason,
			WakeChannels wakeChannels, TimedScripts timedScripts, QueueMetrics metrics,
			ObservationSettings<TaskSchedulingObservationConvention> observations, @Nullable TokenLeases taskLocks) {
		this.locks = new TaskLocks(name, taskLocks);
		this.deadLetterReason = deadLetterReason;
		this.observations = observations;
		this.name = name;
		this.partitions = partitions;
		this.calls = new PartitionCalls(name, layout, timedScripts, visibilityTimeout);
		this.codec = codec;
		this.visibilityTimeout = visibilityTimeout;
		this.wakeChannels = wakeChannels;
		this.metrics = metrics;
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
		String id = UUID.randomUUID().toString();
		try {
			schedule(id, payload, delay);
		}
		catch (QueueUnavailableException ex) {
			// The caller could not retry under the id it never got: Redis may have stored the task
			throw new PartiallyScheduledException(this.name, List.of(), List.of(new NewTask<>(id, payload, delay)), ex);
		}
		return id;
	}

	@Override
	public boolean schedule(String id, T payload, Duration delay) {
		return scheduleOne("delay", id, payload, Long.toString(QueueInput.delayMillis(delay)), null);
	}

	@Override
	public boolean scheduleAt(String id, T payload, Instant dueAt) {
		return scheduleOne("at", id, payload, Long.toString(QueueInput.dueAtMillis(dueAt)), null);
	}

	@Override
	public String schedule(T payload, Duration delay, LockLease lease) {
		String id = UUID.randomUUID().toString();
		try {
			schedule(id, payload, delay, lease);
		}
		catch (QueueUnavailableException ex) {
			throw new PartiallyScheduledException(this.name, List.of(), List.of(new NewTask<>(id, payload, delay)), ex);
		}
		return id;
	}

	/**
	 * Hands the lease over to a token, stores the task with it and then extends the lock to the due
	 * time: a crash before the extension leaves the lock its remaining lease, not the whole delay.
	 */
	@Override
	public boolean schedule(String id, T payload, Duration delay, LockLease lease) {
		long delayMillis = QueueInput.delayMillis(delay);
		// Checked and written before the hand-over, so that bad input leaves the lease as it is.
		String checkedId = QueueInput.id(id);
		String json = this.codec.write(checkedId, QueueInput.payload(payload));
		LeaseToken token = this.locks.handOver(lease);
		if (!send("delay", checkedId, json, Long.toString(delayMillis), token)) {
			this.locks.giveBack(lease, token);
			return false;
		}
		this.locks.keepWaiting(checkedId, token, Duration.ofMillis(delayMillis));
		return true;
	}

	private boolean scheduleOne(String mode, String id, T payload, String time, @Nullable LeaseToken lease) {
		String checkedId = QueueInput.id(id);
		return send(mode, checkedId, this.codec.write(checkedId, QueueInput.payload(payload)), time, lease);
	}

	private boolean send(String mode, String checkedId, String json, String time, @Nullable LeaseToken lease) {
		List<Object> reply = observeScheduling(List.of(checkedId), (trace) -> this.calls.call(QueueScript.SCHEDULE,
				"schedule task '" + checkedId + "'", this.partitions.forId(checkedId).forSchedule(),
				placing(mode, (lease != null) ? TraceContextCodec.withLease(trace, lease) : trace, checkedId, json,
						time)));
		boolean scheduled = PartitionCalls.isOne(reply.get(0));
		if (scheduled) {
			this.metrics.scheduled(this.name, 1);
		}
		return scheduled;
	}

	@Override
	public List<String> scheduleAll(Collection<NewTask<T>> tasks) {
		// Check and write every task before the first script call, so bad input writes nothing.
		List<NewTask<T>> identified = new ArrayList<>(tasks.size());
		List<String> triples = new ArrayList<>(tasks.size() * 3);
		for (NewTask<T> task : tasks) {
			if (task == null) {
				throw new IllegalArgumentException("Task must not be null");
			}
			String id = (task.id() != null) ? QueueInput.id(task.id()) : UUID.randomUUID().toString();
			identified.add(new NewTask<>(id, task.payload(), task.delay()));
			triples.add(id);
			triples.add(this.codec.write(id, QueueInput.payload(task.payload())));
			triples.add(Long.toString(QueueInput.delayMillis(task.delay())));
		}
		List<String> ids = identified.stream().map(NewTask::id).toList();
		return observeScheduling(ids, (trace) -> scheduleInBatches(identified, triples, trace));
	}

	/**
	 * Sends each partition's tasks in batches; the n-th batches of all partitions go out together,
	 * in one round trip. A failure stops before the next round, naming the tasks not confirmed.
	 */
	private List<String> scheduleInBatches(List<NewTask<T>> tasks, List<String> triples, String trace) {
		List<String> ids = tasks.stream().map(NewTask::id).toList();
		Map<QueueKeys, List<Integer>> byPartition = new LinkedHashMap<>();
		for (int i = 0; i < ids.size(); i++) {
			byPartition.computeIfAbsent(this.partitions.forId(ids.get(i)), (keys) -> new ArrayList<>()).add(i);
		}
		String what = "schedule tasks of queue '" + this.name + "'";
		boolean[] answered = new boolean[ids.size()];
		boolean[] stored = new boolean[ids.size()];
		for (int from = 0; ; from += SCHEDULE_BATCH) {
			List<PartitionCall> calls = new ArrayList<>();
			List<List<Integer>> batches = new ArrayList<>();
			for (Map.Entry<QueueKeys, List<Integer>> partition : byPartition.entrySet()) {
				List<Integer> indexes = partition.getValue();
				if (from < indexes.size()) {
					List<Integer> batch = indexes.subList(from, Math.min(indexes.size(), from + SCHEDULE_BATCH));
					List<String> args = new ArrayList<>(batch.size() * 3 + 3);
					args.add("delay");
					args.add(trace);
					for (int index : batch) {
						args.addAll(triples.subList(index * 3, index * 3 + 3));
					}
					args.add(count());
					calls.add(new PartitionCall(partition.getKey().forSchedule(), args));
					batches.add(batch);
				}
			}
			if (calls.isEmpty()) {
				break;
			}
			List<TimedScripts.Reply> replies = this.calls.layout().placed(calls,
					(placing) -> this.calls.runEach(QueueScript.SCHEDULE, what, placing));
			RuntimeException failure = null;
			for (int call = 0; call < calls.size(); call++) {
				try {
					List<Object> reply = this.calls.replyOf(what, replies.get(call));
					List<Integer> batch = batches.get(call);
					for (int i = 0; i < batch.size(); i++) {
						answered[batch.get(i)] = true;
						stored[batch.get(i)] = PartitionCalls.isOne(reply.get(i));
					}
				}
				catch (RuntimeException ex) {
					failure = (failure != null) ? failure : ex;
				}
			}
			if (failure != null) {
				List<String> scheduled = select(ids, stored, true);
				recordScheduled(scheduled.size());
				throw new PartiallyScheduledException(this.name, scheduled, select(tasks, answered, false), failure);
			}
		}
		List<String> scheduled = select(ids, stored, true);
		recordScheduled(scheduled.size());
		return scheduled;
	}

	private static <E> List<E> select(List<E> elements, boolean[] flags, boolean flag) {
		List<E> selected = new ArrayList<>();
		for (int i = 0; i < elements.size(); i++) {
			if (flags[i] == flag) {
				selected.add(elements.get(i));
			}
		}
		return selected;
	}

	/**
	 * Runs a scheduling call under an observation, giving it the trace context to store with the
	 * tasks ({@code ""} without tracing).
	 */
	private <R> R observeScheduling(List<String> ids, Function<String, R> schedule) {
		Observation observation = BatonObservation.TASK_SCHEDULING
			.observation(this.observations.convention(), DefaultTaskSchedulingObservationConvention.INSTANCE,
					() -> new TaskSchedulingContext(this.name, ids), this.observations.registry())
			.start();
		try {
			String trace = (observation.getContext() instanceof TaskSchedulingContext context)
					? TraceContextCodec.encode(context.getTraceContext()) : "";
			return schedule.apply(trace);
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	private void recordScheduled(int count) {
		if (count > 0) {
			this.metrics.scheduled(this.name, count);
		}
	}

	@Override
	public boolean reschedule(String id, Duration delay) {
		long delayMillis = QueueInput.delayMillis(delay);
		List<String> args = placing(QueueInput.id(id), Long.toString(delayMillis));
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
		for (List<Object> reply : runOnEach(QueueScript.ADVANCE, "advance queue", QueueKeys::forAdvance, args)) {
			due += (Long) reply.get(0);
		}
		return due;
	}

	@Override
	public boolean cancel(String id) {
		String checkedId = QueueInput.id(id);
		Object meta = this.calls.call(QueueScript.CANCEL, "cancel task '" + checkedId + "'",
				this.partitions.forId(checkedId).forCancel(), placing(checkedId)).get(0);
		if (meta instanceof String cancelled) {
			this.locks.ended(checkedId, TaskMeta.parse(cancelled));
			return true;
		}
		return false;
	}

	@Override
	public Optional<ScheduledTask<T>> find(String id) {
		String checkedId = QueueInput.id(id);
		List<Object> reply = this.calls.call(QueueScript.FIND, "find task '" + checkedId + "'",
				this.partitions.forId(checkedId).forFind(), placing(checkedId));
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(view(checkedId, (String) reply.get(0), (String) reply.get(1), "1".equals(reply.get(2))));
	}

	@Override
	public List<ScheduledTask<T>> peek(int max) {
		List<ScheduledTask<T>> tasks = new ArrayList<>();
		for (List<Object> reply : readFirst(QueueScript.PEEK, "peek at queue", QueueKeys::forPeek, QueueInput.readMax(max),
				false)) {
			for (int i = 0; i < reply.size(); i += 3) {
				tasks.add(view((String) reply.get(i), (String) reply.get(i + 1), (String) reply.get(i + 2), false));
			}
		}
		return inOrder(tasks, Comparator.comparing(ScheduledTask::dueAt));
	}

	@Override
	public TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken) {
		DueWindow window = DueWindow.of(this.name, from, to, limit, pageToken);
		DueWindow.Cursor after = window.after();
		List<String> args = List.of(Long.toString(window.range().fromMillis()),
				Long.toString(window.range().toMillis()), (after != null) ? Long.toString(after.dueMillis()) : "",
				(after != null) ? after.id() : "", Integer.toString(window.limit()));
		return DueWindowMerge.page(window,
				runOnEach(QueueScript.DUE_WINDOW, "list the tasks due in a window of queue", QueueKeys::forPeek, args),
				(id, payload, meta) -> view(id, payload, meta, false));
	}

	@Override
	public long countDueBetween(Instant from, Instant to) {
		DueWindow.Range range = DueWindow.Range.of(from, to);
		List<String> args = List.of(Long.toString(range.fromMillis()), Long.toString(range.toMillis()));
		long count = 0;
		for (List<Object> reply : runOnEach(QueueScript.COUNT_DUE, "count the tasks due in a window of queue",
				QueueKeys::forCountDue, args)) {
			count += (Long) reply.get(0);
		}
		return count;
	}

	/** The tasks or dead letters that several partitions returned, each in its order, in one order. */
	private <E> List<E> inOrder(List<E> merged, Comparator<E> order) {
		if (this.partitions.count() > 1) {
			merged.sort(order);
		}
		return merged;
	}

	/** A stored task as {@code find}, {@code peek} and {@code dueBetween} show it: one whose payload cannot be read, as such. */
	private ScheduledTask<T> view(String id, String payload, String meta, boolean inFlight) {
		TaskMeta parsed = TaskMeta.parse(meta);
		T read = readOrNull(id, payload);
		return new ScheduledTask<>(id, read, parsed.dueAt(), parsed.scheduledAt(), inFlight,
				(read != null) ? null : payload, (parsed.lease() != null) ? parsed.lease().name() : null);
	}

	/**
	 * The replies of a script that reads the first {@code max} entries of a partition in score
	 * order ({@code peek.lua}, {@code dead-letters.lua}). A partitioned queue first reads only
	 * scores, those of each partition's first few ({@link PartitionShares#firstAsk}), or of its
	 * first {@code max} when those do not tell, and then from each partition its share of the first
	 * {@code max} of all, so that it reads {@code max} payloads in all, not {@code max} per
	 * partition (in two or three round trips, not one snapshot).
	 * @param newestFirst whether the script returns the highest scores first
	 */
	private List<List<Object>> readFirst(QueueScript script, String what, Function<QueueKeys, List<String>> keys,
			int max, boolean newestFirst) {
		List<QueueKeys> all = this.partitions.all();
		if (all.size() == 1) {
			return runOnEach(script, what, keys, List.of(Integer.toString(max), "entries"));
		}
		int asked = PartitionShares.firstAsk(max, all.size());
		int[] shares = PartitionShares.of(scores(script, what, keys, asked), asked, max, newestFirst);
		if (shares == null) {
			shares = PartitionShares.of(scores(script, what, keys, max), max, max, newestFirst);
		}
		List<PartitionCall> calls = new ArrayList<>();
		for (int partition = 0; partition < all.size(); partition++) {
			if (shares[partition] > 0) {
				calls.add(new PartitionCall(keys.apply(all.get(partition)),
						List.of(Integer.toString(shares[partition]), "entries")));
			}
		}
		return this.calls.replies(script, what + " '" + this.name + "'", calls);
	}

	private List<List<Object>> scores(QueueScript script, String what, Function<QueueKeys, List<String>> keys,
			int count) {
		return runOnEach(script, what, keys, List.of(Integer.toString(count), "scores"));
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
		this.locks.beforeRequeue(deliveries, Duration.ZERO);
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
			this.locks.beforeRequeue(one, Duration.ofMillis(Long.parseLong(argument)));
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
	public QueueStats stats() {
		long scheduled = 0;
		long due = 0;
		long inFlight = 0;
		long dead = 0;
		Instant oldestDue = null;
		for (List<Object> reply : runOnEach(QueueScript.STATS, "read the stats of queue", QueueKeys::forStats,
				List.of())) {
			scheduled += (Long) reply.get(0);
			due += (Long) reply.get(1);
			inFlight += (Long) reply.get(2);
			dead += (Long) reply.get(3);
			long oldest = Long.parseLong((String) reply.get(4));
			if (oldest >= 0 && (oldestDue == null || oldest < oldestDue.toEpochMilli())) {
				oldestDue = Instant.ofEpochMilli(oldest);
			}
		}
		return new QueueStats(scheduled, due, inFlight, dead, oldestDue);
	}

	@Override
	public List<DeadLetter<T>> deadLetters(int max) {
		List<DeadLetter<T>> deadLetters = new ArrayList<>();
		for (List<Object> reply : readFirst(QueueScript.DEAD_LETTERS, "read the dead letters of queue",
				QueueKeys::forDeadLetters, QueueInput.readMax(max), true)) {
			for (int i = 0; i < reply.size(); i += 4) {
				String[] info = ((String) reply.get(i + 3)).split("\\|", 3);
				Instant failedAt = Instant.ofEpochMilli((long) Double.parseDouble((String) reply.get(i + 1)));
				String payload = (String) reply.get(i + 2);
				String id = (String) reply.get(i);
				T read = readOrNull(id, payload);
				deadLetters.add(new DeadLetter<>(id, read, Integer.parseInt(info[0]), info[2],
						failedAt, (read != null) ? null : payload));
			}
		}
		return inOrder(deadLetters, Comparator.comparing(DeadLetter<T>::failedAt).reversed());
	}

	private @Nullable T readOrNull(String id, String payload) {
		try {
			return this.codec.read(id, payload);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public boolean redrive(String id) {
		String checkedId = QueueInput.id(id);
		return PartitionCalls.isOne(this.calls.call(QueueScript.REDRIVE, "redrive task '" + checkedId + "'",
				this.partitions.forId(checkedId).forRedrive(), placing(checkedId)).get(0));
	}

	@Override
	public boolean purgeDeadLetter(String id) {
		String checkedId = QueueInput.id(id);
		return PartitionCalls.isOne(this.calls.call(QueueScript.PURGE_DEAD_LETTER, "purge dead letter '" + checkedId + "'",
				this.partitions.forId(checkedId).forPurgeDeadLetter(), placing(checkedId)).get(0));
	}

	/**
	 * Runs the script on every partition at once and returns each reply, throwing the first
	 * failure once all are in.
	 */
	private List<List<Object>> runOnEach(QueueScript script, String what, Function<QueueKeys, List<String>> keys,
			List<String> args) {
		List<PartitionCall> calls = this.partitions.all()
			.stream()
			.map((partition) -> new PartitionCall(keys.apply(partition), args))
			.toList();
		return this.calls.replies(script, what + " '" + this.name + "'", calls);
	}

	/** The arguments of a script that places by id, followed by the partition count it places with. */
	private List<String> placing(String... args) {
		List<String> all = new ArrayList<>(List.of(args));
		all.add(count());
		return all;
	}

	String count() {
		return Integer.toString(this.partitions.count());
	}

	@Override
	public String toString() {
		return "RedisDelayQueue[" + this.name + "]";
	}

}
