package dev.baton.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import dev.baton.internal.ThrottledLog;
import dev.baton.internal.TimedScripts;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.ConsumableQueue.Claim;
import dev.baton.internal.QueueInput;
import dev.baton.internal.SafeDeadLetterReason;

/**
 * Claims a queue's due tasks from its partitions: in rounds, each one round trip, leaving out the
 * partitions that failed, applying the dead-letter retention, parking payloads that cannot be
 * read, and handing back a claim that Redis answered after its caller gave up.
 *
 * @param <T> the payload type
 */
final class PartitionedClaims<T> {

	/** Logged as the queue, where operators look for it. */
	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	/** Expired in-flight tasks requeued per claim, so that a claim after an outage stays short. */
	private static final int REQUEUE_BATCH = 100;

	/** Dead letters the retention deletes per claim, for the same reason. */
	private static final int RETENTION_BATCH = 1000;

	/** Most tasks one claim takes, to keep each script call short (it returns fewer when asked). */
	private static final int CLAIM_BATCH = 1000;

	/**
	 * Most round trips of one claim of a partitioned queue: one partition (with a backlog), the
	 * others, and those whose share left tasks due.
	 */
	private static final int MAX_CLAIM_ROUNDS = 3;

	private final RedisDelayQueue<T> queue;

	private final String name;

	private final QueuePartitions partitions;

	private final PartitionCalls calls;

	private final PayloadCodec<T> codec;

	private final QueueMetrics metrics;

	private final PartitionRetention retention;

	private final DeadLetterReason deadLetterReason;

	/** Tells this consumer's claims from others' on the wake channels. */
	private final String consumerId = UUID.randomUUID().toString().substring(0, 8);

	/** Which partition a claim asks first, so that claims go round the partitions. */
	private final AtomicInteger claimRotation = new AtomicInteger();

	/** The partitions that claims leave out for a while since they failed. */
	private final PartitionRests rests;

	/** Whether the last claim got all it asked for: the queue has a backlog. */
	private volatile boolean lastClaimFull;

	/** Payloads that cannot be read come in floods (a deploy that cannot read old ones): one WARN a minute. */
	private final ThrottledLog unreadableLog = ThrottledLog.warnings(logger, Duration.ofMinutes(1));

	PartitionedClaims(RedisDelayQueue<T> queue, String name, QueuePartitions partitions, PartitionCalls calls,
			PayloadCodec<T> codec, QueueMetrics metrics, PartitionRetention retention,
			DeadLetterReason deadLetterReason) {
		this.queue = queue;
		this.name = name;
		this.partitions = partitions;
		this.calls = calls;
		this.codec = codec;
		this.metrics = metrics;
		this.retention = retention;
		this.deadLetterReason = deadLetterReason;
		this.rests = new PartitionRests(calls.roundWait());
	}

	/** Tells this consumer's claims from others' on the wake channels. */
	String consumerId() {
		return this.consumerId;
	}

	/**
	 * Claims due tasks; see {@link dev.baton.queue.spi.ConsumableQueue#claim}.
	 * <p>A partitioned queue with a backlog (the last claim got all it asked for) asks one
	 * partition, each in turn, for the whole claim, so that a claim costs one script as without
	 * partitions. Otherwise, or when that partition falls short, it asks every partition (the
	 * others) at once, each for a share, the remainder going round; partitions whose share left
	 * tasks due are asked for the rest in one more round. Each round is one round trip.
	 */
	Claim<T> claim(int max, Duration visibilityTimeout) {
		int wanted = Math.min(QueueInput.max(max), CLAIM_BATCH);
		String timeoutMillis = Long.toString(QueueInput.timeoutMillis(visibilityTimeout));
		List<QueueKeys> all = this.partitions.all();
		int first = Math.floorMod(this.claimRotation.getAndIncrement(), all.size());
		List<QueueKeys> rotated = new ArrayList<>(all.subList(first, all.size()));
		rotated.addAll(all.subList(0, first));
		rotated = this.rests.askable(rotated);
		boolean backlog = this.lastClaimFull && rotated.size() > 1;
		PartitionClaims claims = new PartitionClaims();
		List<QueueKeys> asked = backlog ? rotated.subList(0, 1) : rotated;
		for (int round = 0; round < MAX_CLAIM_ROUNDS && !asked.isEmpty(); round++) {
			claimFrom(asked, wanted - claims.deliveries.size(), timeoutMillis, claims);
			asked = (claims.deliveries.size() < wanted) ? claims.unheardOrDue(rotated) : List.of();
		}
		this.lastClaimFull = claims.deliveries.size() >= wanted;
		if (claims.failure != null) {
			if (claims.dueIn.isEmpty()) {
				throw claims.failure;
			}
			// The tasks claimed from the other partitions are in flight now: hand them out.
			logger.warn("Claiming from " + claims.failed.size() + " partition(s) of queue '" + this.name + "' failed; "
					+ "claims leave them out for a while: " + claims.failure.getMessage());
		}
		if (all.size() > 1) {
			claims.deliveries.sort(Comparator.comparing(Delivery::dueAt));
		}
		// Partitions that were not asked may have tasks due: a full claim from one partition looks again soon.
		boolean unheard = claims.dueIn.size() + claims.failed.size() < rotated.size();
		long nextDueIn = unheard ? 0 : claims.nextDueIn();
		long nextAsk = this.rests.nextAskIn();
		if (nextAsk >= 0) {
			// A failed or resting partition is asked again once its rest is over.
			nextDueIn = (nextDueIn < 0) ? nextAsk : Math.min(nextDueIn, nextAsk);
		}
		return new Claim<>(claims.deliveries, (nextDueIn < 0) ? null : Duration.ofMillis(nextDueIn),
				claims.serverTime);
	}

	/** Claims {@code wanted} tasks from the given partitions, in shares, in one round trip. */
	private void claimFrom(List<QueueKeys> partitions, int wanted, String timeoutMillis, PartitionClaims claims) {
		List<PartitionCall> calls = new ArrayList<>(partitions.size());
		for (int i = 0; i < partitions.size(); i++) {
			int share = wanted / partitions.size() + ((i < wanted % partitions.size()) ? 1 : 0);
			calls.add(new PartitionCall(partitions.get(i).forClaim(), List.of(Integer.toString(share), timeoutMillis,
					Integer.toString(REQUEUE_BATCH), this.retention.argument(), Integer.toString(RETENTION_BATCH),
					this.consumerId, Integer.toString(this.partitions.count()))));
		}
		String what = "claim tasks of queue '" + this.name + "'";
		Map<PartitionCall, QueueKeys> partitionOf = new IdentityHashMap<>();
		for (int i = 0; i < calls.size(); i++) {
			partitionOf.put(calls.get(i), partitions.get(i));
		}
		List<TimedScripts.Reply> replies = this.calls.layout().placed(calls, (placing) -> this.calls.runEach(QueueScript.CLAIM, what,
				placing, (index, reply) -> handBackLateClaim(partitionOf.get(placing.get(index)), reply)));
		for (int i = 0; i < replies.size(); i++) {
			try {
				List<Object> reply = this.calls.replyOf(what, replies.get(i));
				claims.answered(partitions.get(i), Instant.ofEpochMilli(Long.parseLong((String) reply.get(0))),
						Long.parseLong((String) reply.get(1)));
				this.rests.answered(partitions.get(i));
				readClaimed(partitions.get(i), reply, claims.deliveries);
			}
			catch (RuntimeException ex) {
				claims.failure = (claims.failure != null) ? claims.failure : ex;
				claims.failed.add(partitions.get(i));
				this.rests.failed(partitions.get(i));
			}
		}
	}

	/**
	 * Hands back the tasks of a claim whose caller gave up before Redis answered, at once and
	 * with their attempt not counted, instead of leaving them in flight for a visibility timeout.
	 * Runs on a Redis client thread, so it only sends.
	 */
	private void handBackLateClaim(QueueKeys partition, @Nullable Object reply) {
		List<?> values = (List<?>) reply;
		if (values == null || values.size() <= 4) {
			return;
		}
		List<String> idsAndTokens = new ArrayList<>();
		for (int i = 4; i < values.size(); i += 3) {
			idsAndTokens.add(PartitionCalls.utf8(values.get(i)));
			idsAndTokens.add(TaskMeta.parse(PartitionCalls.utf8(values.get(i + 2))).token());
		}
		this.calls.timedScripts().sendQuietly(new PartitionCall(partition.forSettle(),
				this.queue.settlements().settleArgs(Settlement.HAND_BACK, "", idsAndTokens)).of(QueueScript.SETTLE));
		logger.info("Handed back " + idsAndTokens.size() / 2 + " task(s) of queue '" + this.name
				+ "' that a claim took after its caller had stopped waiting for Redis");
	}

	/** What the partitions answered to one claim. */
	private final class PartitionClaims {

		final List<Delivery<T>> deliveries = new ArrayList<>();

		/** When each partition that answered has its next task due: 0 now, -1 never. */
		final Map<QueueKeys, Long> dueIn = new LinkedHashMap<>();

		@Nullable Instant serverTime;

		@Nullable RuntimeException failure;

		void answered(QueueKeys partition, Instant now, long nextDueIn) {
			this.serverTime = (this.serverTime == null || now.isAfter(this.serverTime)) ? now : this.serverTime;
			this.dueIn.put(partition, nextDueIn);
		}

		/** Partitions that failed in this claim: not asked again within it. */
		final Set<QueueKeys> failed = new HashSet<>();

		/**
		 * The partitions that have not answered yet or said they have tasks due, in the given order,
		 * but none that failed.
		 */
		List<QueueKeys> unheardOrDue(List<QueueKeys> partitions) {
			return partitions.stream().filter((partition) -> {
				Long next = this.dueIn.get(partition);
				return !this.failed.contains(partition) && (next == null || next == 0);
			}).toList();
		}

		long nextDueIn() {
			return this.dueIn.values().stream().filter((dueIn) -> dueIn >= 0).min(Long::compare).orElse(-1L);
		}

	}

	private void readClaimed(QueueKeys partition, List<Object> reply, List<Delivery<T>> deliveries) {
		int inconsistent = Integer.parseInt((String) reply.get(2));
		if (inconsistent > 0) {
			this.metrics.inconsistent(this.name, inconsistent);
			logger.warn(inconsistent + " task(s) of queue '" + this.name + "' were in line without their payload or "
					+ "details and were dropped: Redis evicted or lost keys of the queue. Run Redis with "
					+ "maxmemory-policy noeviction and check its persistence.");
		}
		int deadDeleted = Integer.parseInt((String) reply.get(3));
		if (deadDeleted > 0) {
			this.metrics.deadLettersDeleted(this.name, deadDeleted);
			logger.info("Deleted " + deadDeleted + " dead letter(s) of queue '" + this.name + "' for good, as its "
					+ "dead-letter retention asks (" + this.retention.limits() + ")");
		}
		for (int i = 4; i < reply.size(); i += 3) {
			String id = (String) reply.get(i);
			TaskMeta meta = TaskMeta.parse((String) reply.get(i + 2));
			try {
				deliveries.add(new RedisDelivery<>(this.queue, partition, id, this.codec.read(id, (String) reply.get(i + 1)), meta));
			}
			catch (JacksonException | IllegalArgumentException ex) {
				// A poison payload would fail on every delivery: park it at once, with the error.
				String reason = SafeDeadLetterReason.of(this.deadLetterReason, ex);
				List<Object> parked = this.queue.settlements().settleTokens(Settlement.DEAD, "Payload cannot be read as "
						+ this.codec.type().getName() + ": " + reason, partition, List.of(id, meta.token()));
				if (PartitionCalls.isOne(parked.get(0))) {
					this.queue.taskLocks().ended(id, meta);
				}
				this.metrics.unreadable(this.name);
				// The reason, not the exception's message: that may quote the stored value.
				this.unreadableLog.log(() -> "Task '" + id + "' of queue '" + this.name + "' has a payload that cannot "
						+ "be read as " + this.codec.type().getName() + "; it was dead-lettered with its stored JSON "
						+ "(see deadLetters() or the baton actuator endpoint): " + reason);
			}
		}
	}

}
