package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.queue.PartiallyScheduledException;
import dev.baton.queue.QueueStats;
import dev.baton.queue.ScheduledTask;
import dev.baton.internal.ObservationSettings;
import dev.baton.internal.TimedScripts;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultTaskSchedulingObservationConvention;
import dev.baton.observation.TaskSchedulingContext;
import dev.baton.observation.TaskSchedulingObservationConvention;
import io.micrometer.observation.Observation;
import dev.baton.queue.internal.ConsumableQueue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A {@link DelayQueue} in Redis; every state change is one Lua script (see the scripts next to
 * this class for the key layout).
 *
 * @param <T> the payload type
 */
final class RedisDelayQueue<T> implements ConsumableQueue<T> {

	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	/** Tasks per script call in {@link #scheduleAll}, so that one call does not stall Redis. */
	private static final int SCHEDULE_BATCH = 1000;

	/** Expired in-flight tasks requeued per claim, so that a claim after an outage stays short. */
	private static final int REQUEUE_BATCH = 100;

	/** Most tasks one claim takes, to keep each script call short (it returns fewer when asked). */
	private static final int CLAIM_BATCH = 1000;

	private final String name;

	private final QueueKeys keys;

	private final PayloadCodec<T> codec;

	private final StringRedisTemplate redis;

	private final Duration visibilityTimeout;

	/** The retention of dead letters, as settle.lua reads it: {@code maxCount|maxAgeMillis|}. */
	private final String deadLetterRetention;

	private final WakeChannels wakeChannels;

	private final TimedScripts timedScripts;

	private final QueueMetrics metrics;

	private final ObservationSettings<TaskSchedulingObservationConvention> observations;

	RedisDelayQueue(String name, QueueKeys keys, PayloadCodec<T> codec, StringRedisTemplate redis,
			Duration visibilityTimeout, DeadLetterRetention deadLetterRetention, WakeChannels wakeChannels,
			TimedScripts timedScripts, QueueMetrics metrics,
			ObservationSettings<TaskSchedulingObservationConvention> observations) {
		this.timedScripts = timedScripts;
		this.observations = observations;
		this.deadLetterRetention = deadLetterRetention.maxCount() + "|" + deadLetterRetention.maxAge().toMillis() + "|";
		this.name = name;
		this.keys = keys;
		this.codec = codec;
		this.redis = redis;
		this.visibilityTimeout = visibilityTimeout;
		this.wakeChannels = wakeChannels;
		this.metrics = metrics;
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
		return scheduleOne("delay", id, payload, Validate.delayMillis(delay));
	}

	@Override
	public boolean scheduleAt(String id, T payload, Instant dueAt) {
		return scheduleOne("at", id, payload, Validate.dueAtMillis(dueAt));
	}

	private boolean scheduleOne(String mode, String id, T payload, String time) {
		String checkedId = Validate.id(id);
		String json = this.codec.write(Validate.payload(payload));
		List<Object> reply = observeScheduling(List.of(checkedId), (trace) -> QueueScript.SCHEDULE.run(this.redis,
				this.keys.forSchedule(), List.of(mode, trace, checkedId, json, time)));
		boolean scheduled = isOne(reply.get(0));
		if (scheduled) {
			this.metrics.scheduled(this.name, 1);
		}
		return scheduled;
	}

	@Override
	public List<String> scheduleAll(Collection<NewTask<T>> tasks) {
		// Check and write every task before the first script call, so bad input writes nothing.
		List<String> ids = new ArrayList<>(tasks.size());
		List<String> triples = new ArrayList<>(tasks.size() * 3);
		for (NewTask<T> task : tasks) {
			if (task == null) {
				throw new IllegalArgumentException("Task must not be null");
			}
			String id = (task.id() != null) ? Validate.id(task.id()) : UUID.randomUUID().toString();
			ids.add(id);
			triples.add(id);
			triples.add(this.codec.write(Validate.payload(task.payload())));
			triples.add(Validate.delayMillis(task.delay()));
		}
		return observeScheduling(ids, (trace) -> scheduleInBatches(ids, triples, trace));
	}

	private List<String> scheduleInBatches(List<String> ids, List<String> triples, String trace) {
		List<String> scheduled = new ArrayList<>(ids.size());
		for (int from = 0; from < ids.size(); from += SCHEDULE_BATCH) {
			int to = Math.min(ids.size(), from + SCHEDULE_BATCH);
			List<String> args = new ArrayList<>((to - from) * 3 + 2);
			args.add("delay");
			args.add(trace);
			args.addAll(triples.subList(from * 3, to * 3));
			List<Object> reply;
			try {
				reply = QueueScript.SCHEDULE.run(this.redis, this.keys.forSchedule(), args);
			}
			catch (RuntimeException ex) {
				if (from == 0) {
					throw ex;
				}
				recordScheduled(scheduled.size());
				throw new PartiallyScheduledException(this.name, scheduled, ids.subList(from, ids.size()), ex);
			}
			for (int i = 0; i < reply.size(); i++) {
				if (isOne(reply.get(i))) {
					scheduled.add(ids.get(from + i));
				}
			}
		}
		recordScheduled(scheduled.size());
		return scheduled;
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
		List<String> args = List.of(Validate.id(id), Validate.delayMillis(delay));
		return isOne(QueueScript.RESCHEDULE.run(this.redis, this.keys.forReschedule(), args).get(0));
	}

	@Override
	public long advance(@Nullable Duration by) {
		List<String> args = List.of((by != null) ? Validate.delayMillis(by) : "all");
		return (Long) QueueScript.ADVANCE.run(this.redis, this.keys.forAdvance(), args).get(0);
	}

	@Override
	public boolean cancel(String id) {
		return isOne(QueueScript.CANCEL.run(this.redis, this.keys.forCancel(), List.of(Validate.id(id))).get(0));
	}

	@Override
	public Optional<ScheduledTask<T>> find(String id) {
		List<Object> reply = QueueScript.FIND.run(this.redis, this.keys.forFind(), List.of(Validate.id(id)));
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		String payload = (String) reply.get(0);
		TaskMeta meta = TaskMeta.parse((String) reply.get(1));
		return Optional.of(new ScheduledTask<>(id, readForView(id, payload), meta.dueAt(), meta.scheduledAt(),
				"1".equals(reply.get(2))));
	}

	@Override
	public List<ScheduledTask<T>> peek(int max) {
		List<Object> reply = QueueScript.PEEK.run(this.redis, this.keys.forPeek(),
				List.of(Integer.toString(Validate.max(max))));
		List<ScheduledTask<T>> tasks = new ArrayList<>(reply.size() / 3);
		for (int i = 0; i < reply.size(); i += 3) {
			String id = (String) reply.get(i);
			TaskMeta meta = TaskMeta.parse((String) reply.get(i + 2));
			tasks.add(new ScheduledTask<>(id, readForView(id, (String) reply.get(i + 1)), meta.dueAt(),
					meta.scheduledAt(), false));
		}
		return tasks;
	}

	private T readForView(String id, String payload) {
		try {
			return this.codec.read(payload);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			throw new IllegalStateException("Payload of task '" + id + "' in queue '" + this.name
					+ "' cannot be read; it will be dead-lettered when it falls due: " + ex.getMessage(), ex);
		}
	}

	@Override
	public List<Delivery<T>> poll(int max) {
		return claim(max, this.visibilityTimeout).deliveries();
	}

	@Override
	public Claim<T> claim(int max, Duration visibilityTimeout) {
		List<String> args = List.of(Integer.toString(Math.min(Validate.max(max), CLAIM_BATCH)),
				Validate.timeoutMillis(visibilityTimeout),
				Integer.toString(REQUEUE_BATCH));
		List<Object> reply = QueueScript.CLAIM.run(this.redis, this.keys.forClaim(), args);
		Instant serverTime = Instant.ofEpochMilli(Long.parseLong((String) reply.get(0)));
		long nextDueIn = Long.parseLong((String) reply.get(1));
		int inconsistent = Integer.parseInt((String) reply.get(2));
		if (inconsistent > 0) {
			this.metrics.inconsistent(this.name, inconsistent);
			logger.warn(inconsistent + " task(s) of queue '" + this.name + "' were in line without their payload or "
					+ "details and were dropped: Redis evicted or lost keys of the queue. Run Redis with "
					+ "maxmemory-policy noeviction and check its persistence.");
		}
		List<Delivery<T>> deliveries = new ArrayList<>((reply.size() - 3) / 3);
		for (int i = 3; i < reply.size(); i += 3) {
			String id = (String) reply.get(i);
			TaskMeta meta = TaskMeta.parse((String) reply.get(i + 2));
			try {
				deliveries.add(new RedisDelivery<>(this, id, this.codec.read((String) reply.get(i + 1)), meta));
			}
			catch (JacksonException | IllegalArgumentException ex) {
				// A poison payload would fail on every delivery: park it at once, with the error.
				settleTokens(Settlement.DEAD, "Payload cannot be read: " + ex.getMessage(),
						List.of(id, meta.token()));
			}
		}
		return new Claim<>(deliveries, (nextDueIn < 0) ? null : Duration.ofMillis(nextDueIn), serverTime);
	}

	@Override
	public void extendVisibility(Collection<? extends Delivery<T>> deliveries, Duration visibilityTimeout) {
		String timeoutMillis = Validate.timeoutMillis(visibilityTimeout);
		if (deliveries.isEmpty()) {
			return;
		}
		// Bounded well below the visibility timeout, so that a call Redis does not answer is given
		// up while the deliveries are still safe, and the next extension can try again.
		List<String> args = new ArrayList<>(deliveries.size() * 2 + 2);
		args.add(Settlement.EXTEND.action());
		args.add(timeoutMillis);
		args.addAll(idsAndTokens(deliveries));
		Duration bound = Duration.ofMillis(Math.max(visibilityTimeout.toMillis() / 3, 1));
		TimedScripts.Script extend = new TimedScripts.Script(QueueScript.SETTLE.script(), this.keys.forSettle(),
				args.toArray(String[]::new));
		String what = "extend the visibility of " + deliveries.size() + " task(s) of queue '" + this.name + "'";
		this.timedScripts.value(what, this.timedScripts.evalAll(what, List.of(extend), bound).get(0));
	}

	@Override
	public void acknowledge(Collection<? extends Delivery<T>> deliveries) {
		settle(Settlement.ACK, "", deliveries);
	}

	@Override
	public void handBack(Collection<? extends Delivery<T>> deliveries) {
		settle(Settlement.HAND_BACK, "", deliveries);
	}

	@Override
	public AutoCloseable onWake(Runnable listener) {
		return this.wakeChannels.listen(this.keys.wake(), listener);
	}

	boolean settle(Settlement settlement, String argument, RedisDelivery<T> delivery) {
		return isOne(settleTokens(settlement, argument, List.of(delivery.id(), delivery.token())).get(0));
	}

	private void settle(Settlement settlement, String argument, Collection<? extends Delivery<T>> deliveries) {
		if (deliveries.isEmpty()) {
			return;
		}
		settleTokens(settlement, argument, idsAndTokens(deliveries));
	}

	private List<String> idsAndTokens(Collection<? extends Delivery<T>> deliveries) {
		List<String> idsAndTokens = new ArrayList<>(deliveries.size() * 2);
		for (Delivery<T> delivery : deliveries) {
			if (!(delivery instanceof RedisDelivery<T> redisDelivery) || redisDelivery.queue() != this) {
				throw new IllegalArgumentException(delivery + " was not claimed from queue '" + this.name + "'");
			}
			idsAndTokens.add(redisDelivery.id());
			idsAndTokens.add(redisDelivery.token());
		}
		return idsAndTokens;
	}

	private List<Object> settleTokens(Settlement settlement, String argument, List<String> idsAndTokens) {
		List<String> args = new ArrayList<>(idsAndTokens.size() + 2);
		args.add(settlement.action());
		// Dead letters carry the queue's retention, and a reason of bounded length.
		args.add((settlement == Settlement.DEAD) ? this.deadLetterRetention + Validate.reason(argument) : argument);
		args.addAll(idsAndTokens);
		return QueueScript.SETTLE.run(this.redis, this.keys.forSettle(), args);
	}

	@Override
	public QueueStats stats() {
		List<Object> reply = QueueScript.STATS.run(this.redis, this.keys.forStats(), List.of());
		long oldest = Long.parseLong((String) reply.get(4));
		return new QueueStats((Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2), (Long) reply.get(3),
				(oldest < 0) ? null : Instant.ofEpochMilli(oldest));
	}

	@Override
	public List<DeadLetter<T>> deadLetters(int max) {
		List<Object> reply = QueueScript.DEAD_LETTERS.run(this.redis, this.keys.forDeadLetters(),
				List.of(Integer.toString(Validate.max(max))));
		List<DeadLetter<T>> deadLetters = new ArrayList<>(reply.size() / 4);
		for (int i = 0; i < reply.size(); i += 4) {
			String[] info = ((String) reply.get(i + 3)).split("\\|", 3);
			Instant failedAt = Instant.ofEpochMilli((long) Double.parseDouble((String) reply.get(i + 1)));
			deadLetters.add(new DeadLetter<>((String) reply.get(i), readOrNull((String) reply.get(i + 2)),
					Integer.parseInt(info[0]), info[2], failedAt));
		}
		return deadLetters;
	}

	private @Nullable T readOrNull(String payload) {
		try {
			return this.codec.read(payload);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public boolean redrive(String id) {
		return isOne(QueueScript.REDRIVE.run(this.redis, this.keys.forRedrive(), List.of(Validate.id(id))).get(0));
	}

	@Override
	public boolean purgeDeadLetter(String id) {
		return isOne(QueueScript.PURGE_DEAD_LETTER
			.run(this.redis, this.keys.forDeadLetters(), List.of(Validate.id(id)))
			.get(0));
	}

	private static boolean isOne(Object reply) {
		return Long.valueOf(1).equals(reply);
	}

	@Override
	public String toString() {
		return "RedisDelayQueue[" + this.name + "]";
	}

}
