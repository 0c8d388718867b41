package dev.baton.queue.redis;

import java.util.List;

/**
 * The Redis keys of one queue, or of one partition of a partitioned queue, all under one hash tag
 * so that they live in one cluster slot and every script can touch all of them: {@code {name}}
 * for an unpartitioned queue and the first partition, {@code {name#k}} for partition k (whose
 * keys also carry {@code :pk:}, so that they cannot be those of a queue named {@code name#k}).
 *
 * @param due waiting tasks: sorted set of sequence-prefixed ids scored by due time
 * @param tasks scheduled and in-flight tasks by id: the payload (storage format 0) or one value of
 * meta and payload (format 1, see {@code readStored} in common.lua)
 * @param meta task metadata by id ({@code scheduledAt|dueAt|attempt|token|sequence}), of format 0 tasks
 * @param inFlight claimed tasks: sorted set of ids scored by visibility deadline
 * @param sequence counter for scheduling order and delivery tokens, expiring a day after its last
 * use (see {@code reserveSequence} in common.lua)
 * @param wake channel published when a task falls due before every waiting task
 * @param dead dead letters: sorted set of ids scored by failure time
 * @param deadPayloads dead letters by id: the payload (format 0) or one value of details and payload (format 1)
 * @param deadInfo dead letter details by id ({@code attempts|scheduledAt|reason}), of format 0 dead letters
 * @param partitions the queue's partition count as recorded in this partition's slot, which the
 * scripts that place by id check (see {@link PartitionLayout}); in the first partition, the record
 * that the others copy
 * @param replies the prefix of the keys under which a script that Lettuce may send twice remembers
 * its reply for a few seconds, by call id (see {@code rememberedReply} in common.lua)
 */
record QueueKeys(String due, String tasks, String meta, String inFlight, String sequence, String wake, String dead,
		String deadPayloads, String deadInfo, String partitions, String replies) {

	static QueueKeys of(String prefix, String queue) {
		return of(prefix, queue, 0);
	}

	static QueueKeys of(String prefix, String queue, int partition) {
		String base = base(prefix, queue, partition);
		return new QueueKeys(base + "due", base + "tasks", base + "meta", base + "inflight", base + "seq",
				base + "wake", base + "dead", base + "dead-payloads", base + "dead-info", base + "partitions",
				base + "reply:");
	}

	/** What every key of the partition starts with, before its suffix. */
	static String base(String prefix, String queue, int partition) {
		return (partition == 0) ? prefix + "{" + queue + "}:"
				: prefix + "{" + queue + "#" + partition + "}:p" + partition + ":";
	}

	/** The keys and the wake channel: all but the remembered replies, whose names change by call. */
	List<String> named() {
		return List.of(this.due, this.tasks, this.meta, this.inFlight, this.sequence, this.wake, this.dead,
				this.deadPayloads, this.deadInfo, this.partitions);
	}

	/** @param callId the call's own id, under which it remembers its reply */
	List<String> forSchedule(String callId) {
		return List.of(this.due, this.tasks, this.meta, this.sequence, this.wake, this.replies + callId,
				this.partitions);
	}

	List<String> forClaim() {
		return List.of(this.due, this.tasks, this.meta, this.inFlight, this.sequence, this.dead, this.deadPayloads,
				this.deadInfo, this.wake, this.partitions);
	}

	List<String> forSettle() {
		return List.of(this.due, this.tasks, this.meta, this.inFlight, this.sequence, this.wake, this.dead,
				this.deadPayloads, this.deadInfo);
	}

	/** @param callId the call's own id, under which it remembers its reply */
	List<String> forCancel(String callId) {
		return List.of(this.due, this.tasks, this.meta, this.replies + callId, this.partitions);
	}

	List<String> forReschedule() {
		return List.of(this.due, this.tasks, this.meta, this.sequence, this.wake, this.partitions);
	}

	List<String> forAdvance() {
		return List.of(this.due, this.tasks, this.meta, this.wake);
	}

	List<String> forRedrive() {
		return List.of(this.due, this.tasks, this.meta, this.sequence, this.wake, this.dead, this.deadPayloads,
				this.deadInfo, this.partitions);
	}

	List<String> forPurgeDeadLetter() {
		return List.of(this.dead, this.deadPayloads, this.deadInfo, this.partitions);
	}

	List<String> forDeadLetters() {
		return List.of(this.dead, this.deadPayloads, this.deadInfo);
	}

	List<String> forFind() {
		return List.of(this.tasks, this.meta, this.inFlight, this.partitions);
	}

	List<String> forPeek() {
		return List.of(this.due, this.tasks, this.meta);
	}

	List<String> forCountDue() {
		return List.of(this.due);
	}

	List<String> forStats() {
		return List.of(this.due, this.inFlight, this.dead);
	}

}
