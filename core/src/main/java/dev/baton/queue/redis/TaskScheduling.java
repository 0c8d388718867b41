package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

import dev.baton.internal.ObservationSettings;
import dev.baton.internal.QueueInput;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultTaskSchedulingObservationConvention;
import dev.baton.observation.TaskSchedulingContext;
import dev.baton.observation.TaskSchedulingObservationConvention;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.queue.QueueUnavailableException;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * How a queue stores new tasks: one at a time, in batches across partitions, or holding a lock
 * ({@link TaskLocks}); each scheduling call observed, with the trace context stored in the tasks.
 *
 * @param <T> the payload type
 */
final class TaskScheduling<T> {

	/** Tasks per script call in {@link #scheduleAll}, so that one call does not stall Redis. */
	private static final int SCHEDULE_BATCH = 1000;

	private final String name;

	private final QueuePartitions partitions;

	private final PayloadCodec<T> codec;

	private final PartitionCalls calls;

	private final QueueMetrics metrics;

	private final ObservationSettings<TaskSchedulingObservationConvention> observations;

	private final TaskLocks locks;

	/** The storage format new tasks are written in, as the script's argument. */
	private final String storageFormat;

	TaskScheduling(String name, QueuePartitions partitions, PayloadCodec<T> codec, PartitionCalls calls,
			QueueMetrics metrics, ObservationSettings<TaskSchedulingObservationConvention> observations,
			TaskLocks locks, int storageFormat) {
		this.name = name;
		this.partitions = partitions;
		this.codec = codec;
		this.calls = calls;
		this.metrics = metrics;
		this.observations = observations;
		this.locks = locks;
		this.storageFormat = Integer.toString(storageFormat);
	}

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

	public boolean schedule(String id, T payload, Duration delay) {
		return scheduleOne("delay", id, payload, Long.toString(QueueInput.delayMillis(delay)), null);
	}

	public boolean scheduleAt(String id, T payload, Instant dueAt) {
		return scheduleOne("at", id, payload, Long.toString(QueueInput.dueAtMillis(dueAt)), null);
	}

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
				"schedule task '" + checkedId + "'", this.partitions.forId(checkedId).forSchedule(PartitionCalls.newCallId()),
				this.partitions.placing(mode, (lease != null) ? TraceContextCodec.withLease(trace, lease) : trace,
						this.calls.rememberMillis(), this.storageFormat, checkedId, json, time)));
		boolean scheduled = PartitionCalls.isOne(reply.get(0));
		if (scheduled) {
			this.metrics.scheduled(this.name, 1);
		}
		return scheduled;
	}

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
					List<String> args = new ArrayList<>(batch.size() * 3 + 5);
					args.add("delay");
					args.add(trace);
					args.add(this.calls.rememberMillis());
					args.add(this.storageFormat);
					for (int index : batch) {
						args.addAll(triples.subList(index * 3, index * 3 + 3));
					}
					args.add(Integer.toString(this.partitions.count()));
					calls.add(new PartitionCall(partition.getKey().forSchedule(PartitionCalls.newCallId()), args));
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

}
