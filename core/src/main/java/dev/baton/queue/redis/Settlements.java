package dev.baton.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.internal.TimedScripts;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.PartialSettlementException;
import dev.baton.internal.QueueInput;

/**
 * Settles and extends a queue's deliveries: one script call per partition, all at once, each
 * partition counted on its own, and only the deliveries whose token Redis still holds.
 *
 * @param <T> the payload type
 */
final class Settlements<T> {

	private final RedisDelayQueue<T> queue;

	private final String name;

	private final PartitionCalls calls;

	Settlements(RedisDelayQueue<T> queue, String name, PartitionCalls calls) {
		this.queue = queue;
		this.name = name;
		this.calls = calls;
	}

	/** Extends the deliveries' visibility; returns those Redis found stale. */
	List<Delivery<T>> extendVisibility(Collection<? extends Delivery<T>> deliveries,
			Duration visibilityTimeout) {
		String timeoutMillis = Long.toString(QueueInput.timeoutMillis(visibilityTimeout));
		if (deliveries.isEmpty()) {
			return List.of();
		}
		Map<QueueKeys, List<RedisDelivery<T>>> byPartition = byPartition(deliveries);
		List<TimedScripts.Script> scripts = settleCalls(Settlement.EXTEND, timeoutMillis, byPartition).stream()
			.map((call) -> call.of(QueueScript.SETTLE))
			.toList();
		// Bounded well below the visibility timeout, so that a call Redis does not answer is given
		// up while the deliveries are still safe, and the next extension can try again.
		Duration bound = Duration.ofMillis(Math.max(visibilityTimeout.toMillis() / 3, 1));
		String what = "extend the visibility of " + deliveries.size() + " task(s) of queue '" + this.name + "'";
		return stale(what, byPartition, this.calls.timedScripts().evalAll(what, scripts, bound));
	}

	boolean settleOne(Settlement settlement, String argument, RedisDelivery<T> delivery) {
		return PartitionCalls.isOne(settleTokens(settlement, argument, delivery.partition(), List.of(delivery.id(), delivery.token()))
			.get(0));
	}

	/** Settles the deliveries, one script call per partition, all at once; returns the stale ones. */
	List<Delivery<T>> settle(Settlement settlement, String argument,
			Collection<? extends Delivery<T>> deliveries) {
		if (deliveries.isEmpty()) {
			return List.of();
		}
		Map<QueueKeys, List<RedisDelivery<T>>> byPartition = byPartition(deliveries);
		String what = "settle tasks of queue '" + this.name + "'";
		return stale(what, byPartition,
				this.calls.runEach(QueueScript.SETTLE, what, settleCalls(settlement, argument, byPartition)));
	}

	/** The deliveries by the partition they were claimed from. */
	private Map<QueueKeys, List<RedisDelivery<T>>> byPartition(Collection<? extends Delivery<T>> deliveries) {
		Map<QueueKeys, List<RedisDelivery<T>>> byPartition = new LinkedHashMap<>();
		for (Delivery<T> delivery : deliveries) {
			if (!(delivery instanceof RedisDelivery<T> redisDelivery) || redisDelivery.queue() != this.queue) {
				throw new IllegalArgumentException(delivery + " was not claimed from queue '" + this.name + "'");
			}
			byPartition.computeIfAbsent(redisDelivery.partition(), (partition) -> new ArrayList<>()).add(redisDelivery);
		}
		return byPartition;
	}

	private List<PartitionCall> settleCalls(Settlement settlement, String argument,
			Map<QueueKeys, List<RedisDelivery<T>>> byPartition) {
		List<PartitionCall> calls = new ArrayList<>(byPartition.size());
		byPartition.forEach((partition, deliveries) -> {
			List<String> idsAndTokens = new ArrayList<>(deliveries.size() * 2);
			for (RedisDelivery<T> delivery : deliveries) {
				idsAndTokens.add(delivery.id());
				idsAndTokens.add(delivery.token());
			}
			calls.add(new PartitionCall(partition.forSettle(), settleArgs(settlement, argument, idsAndTokens)));
		});
		return calls;
	}

	/**
	 * The deliveries settle.lua answered 0 for, from each partition's reply in the order of
	 * {@code byPartition}. Each partition counts on its own, so that one failing partition does not
	 * make the others' settlements look failed.
	 * @throws PartialSettlementException if some partitions failed and others answered
	 * @throws RuntimeException the first partition's failure, if every one failed
	 */
	private List<Delivery<T>> stale(String what, Map<QueueKeys, List<RedisDelivery<T>>> byPartition,
			List<TimedScripts.Reply> replies) {
		List<Delivery<T>> stale = new ArrayList<>();
		List<Delivery<T>> unsettled = new ArrayList<>();
		RuntimeException failure = null;
		int call = 0;
		for (List<RedisDelivery<T>> deliveries : byPartition.values()) {
			List<Object> results;
			try {
				results = this.calls.replyOf(what, replies.get(call++));
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
				unsettled.addAll(deliveries);
				continue;
			}
			for (int i = 0; i < deliveries.size(); i++) {
				if (!PartitionCalls.isOne(results.get(i))) {
					stale.add(deliveries.get(i));
				}
			}
		}
		if (failure == null) {
			return stale;
		}
		if (unsettled.size() == byPartition.values().stream().mapToInt(List::size).sum()) {
			throw failure;
		}
		throw new PartialSettlementException("Could not " + what + " on " + unsettled.size() + " task(s) of queue '"
				+ this.name + "'; the others' partitions answered: " + failure.getMessage(), failure, unsettled, stale);
	}

	List<Object> settleTokens(Settlement settlement, String argument, QueueKeys partition,
			List<String> idsAndTokens) {
		return this.calls.call(QueueScript.SETTLE, "settle tasks", partition.forSettle(),
				settleArgs(settlement, argument, idsAndTokens));
	}

	List<String> settleArgs(Settlement settlement, String argument, List<String> idsAndTokens) {
		List<String> args = new ArrayList<>(idsAndTokens.size() + 2);
		args.add(settlement.action());
		// Dead letters carry a reason of bounded length.
		args.add((settlement == Settlement.DEAD) ? QueueInput.reason(argument) : argument);
		args.addAll(idsAndTokens);
		return args;
	}

}
