package dev.baton.queue.redis;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.lock.LeaseToken;
import org.jspecify.annotations.Nullable;

/**
 * A task's metadata as the scripts store it: {@code scheduledAt|dueAt|attempt|token|sequence},
 * times in epoch milliseconds of the Redis clock, followed by the trace context of its
 * scheduling ({@link TraceContextCodec}) and the token of the lock it holds, if any.
 *
 * @param scheduledAt when the task was scheduled
 * @param dueAt when the task falls due
 * @param attempt deliveries so far
 * @param token the current delivery token
 * @param traceContext the trace context stored at scheduling, empty without one
 * @param lease the token of the lock the task holds, or {@code null}
 */
record TaskMeta(Instant scheduledAt, Instant dueAt, int attempt, String token, Map<String, String> traceContext,
		@Nullable LeaseToken lease) {

	static TaskMeta parse(String meta) {
		String[] parts = meta.split("\\|", 6);
		Map<String, String> fields = (parts.length > 5) ? TraceContextCodec.decode("|" + parts[5]) : Map.of();
		String lease = fields.get(TraceContextCodec.LEASE_FIELD);
		Map<String, String> traceContext = fields;
		if (lease != null) {
			traceContext = new LinkedHashMap<>(fields);
			traceContext.remove(TraceContextCodec.LEASE_FIELD);
		}
		return new TaskMeta(Instant.ofEpochMilli(Long.parseLong(parts[0])),
				Instant.ofEpochMilli(Long.parseLong(parts[1])), Integer.parseInt(parts[2]), parts[3], traceContext,
				(lease != null) ? leaseOrNull(lease) : null);
	}

	/**
	 * The token stored with a task, or {@code null} if it does not read (written behind Baton's
	 * back): the task is still claimed and run, and its lock runs out instead of being released.
	 */
	private static @Nullable LeaseToken leaseOrNull(String lease) {
		try {
			return LeaseToken.parse(lease);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return "TaskMeta[dueAt=" + this.dueAt + ", attempt=" + this.attempt + ", lease=" + this.lease + "]";
	}

}
