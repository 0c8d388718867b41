package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import dev.baton.internal.TimedScripts;
import dev.baton.queue.QueueException;

/**
 * Runs a queue's scripts on its partitions: placed with the partition count recorded in Redis
 * ({@link PartitionLayout}), several at once in one round trip, each bounded in time, with
 * replies read as strings.
 */
final class PartitionCalls {

	private final String queue;

	private final PartitionLayout layout;

	private final TimedScripts timedScripts;

	private final Duration visibilityTimeout;

	PartitionCalls(String queue, PartitionLayout layout, TimedScripts timedScripts, Duration visibilityTimeout) {
		this.queue = queue;
		this.layout = layout;
		this.timedScripts = timedScripts;
		this.visibilityTimeout = visibilityTimeout;
	}

	/**
	 * Runs the script on every partition at once and returns each reply, throwing the first
	 * failure once all are in.
	 */
	List<List<Object>> onEach(List<QueueKeys> partitions, QueueScript script, String what,
			Function<QueueKeys, List<String>> keys, List<String> args) {
		List<PartitionCall> calls = partitions.stream()
			.map((partition) -> new PartitionCall(keys.apply(partition), args))
			.toList();
		return replies(script, what + " '" + this.queue + "'", calls);
	}

	/** A new id for a call that remembers its reply, unique among the calls of a few seconds. */
	static String newCallId() {
		return Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
	}

	/**
	 * How long a script remembers its reply for a second run of the same call: while its caller
	 * waits for it (the command timeout, twice over for a call held during a failover), after which
	 * nobody reads a reply.
	 */
	String rememberMillis() {
		return Long.toString(this.timedScripts.timeout().toMillis() * 2 + 1000);
	}

	PartitionLayout layout() {
		return this.layout;
	}

	TimedScripts timedScripts() {
		return this.timedScripts;
	}

	/** Runs the calls as {@link #runEach} does and returns each reply, throwing the first failure once all are in. */
	List<List<Object>> replies(QueueScript script, String what, List<PartitionCall> calls) {
		List<TimedScripts.Reply> replies = runEach(script, what, calls);
		List<List<Object>> values = new ArrayList<>(replies.size());
		for (TimedScripts.Reply reply : replies) {
			values.add(replyOf(what, reply));
		}
		return values;
	}

	/**
	 * Runs one script call, bounded by the command timeout.
	 * @param what what the call does, completed with the queue's name
	 */
	List<Object> call(QueueScript script, String what, List<String> keys, List<String> args) {
		String fullWhat = what + " of queue '" + this.queue + "'";
		return replyOf(fullWhat, this.layout.placed(List.of(new PartitionCall(keys, args)), (placing) -> this.timedScripts
			.evalAll(fullWhat, placing.stream().map((call) -> call.of(script)).toList())).get(0));
	}

	/**
	 * Runs one script call per partition; several at once, in one round trip. Each reply is the
	 * script's value or its failure. A partition that does not answer (killed, failing over) holds
	 * up the others at most the command timeout, or a third of the visibility timeout if that is
	 * shorter.
	 */
	List<TimedScripts.Reply> runEach(QueueScript script, String what, List<PartitionCall> calls) {
		return runEach(script, what, calls, TimedScripts.LateReplies.IGNORED);
	}

	/** Runs the calls as {@link #runEach(QueueScript, String, List)} does; late replies go to {@code late}. */
	List<TimedScripts.Reply> runEach(QueueScript script, String what, List<PartitionCall> calls,
			TimedScripts.LateReplies late) {
		List<TimedScripts.Script> scripts = new ArrayList<>(calls.size());
		for (PartitionCall call : calls) {
			scripts.add(call.of(script));
		}
		return this.timedScripts.evalAll(what, scripts, roundWait(), late);
	}

	/** How long one round of calls waits for the partitions that answer late. */
	Duration roundWait() {
		Duration commandTimeout = this.timedScripts.timeout();
		return (this.visibilityTimeout.compareTo(commandTimeout.multipliedBy(3)) < 0)
				? this.visibilityTimeout.dividedBy(3) : commandTimeout;
	}

	/**
	 * The value of a script's reply, bulk strings as strings.
	 * @throws RuntimeException the failure: as Spring Data Redis translated it, or wrapped
	 */
	List<Object> replyOf(String what, TimedScripts.Reply reply) {
		if (reply.failure() instanceof QueueException failure) {
			// A check of the partitions that failed already names the queue.
			throw failure;
		}
		List<?> value = (List<?>) this.timedScripts.value(what, reply);
		List<Object> strings = new ArrayList<>(value.size());
		for (Object element : value) {
			strings.add((element instanceof byte[]) ? utf8(element) : element);
		}
		return strings;
	}

	/** Whether a script answered 1: done, or current. */
	static boolean isOne(Object reply) {
		return Long.valueOf(1).equals(reply);
	}

	static String utf8(Object bulk) {
		return (bulk instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : (String) bulk;
	}

}
