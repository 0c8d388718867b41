package dev.baton.queue.redis;

import java.time.Instant;
import java.util.Map;

/**
 * A task's metadata as the scripts store it: {@code scheduledAt|dueAt|attempt|token|sequence},
 * times in epoch milliseconds of the Redis clock, followed by the trace context of its
 * scheduling ({@link TraceContextCodec}).
 *
 * @param scheduledAt when the task was scheduled
 * @param dueAt when the task falls due
 * @param attempt deliveries so far
 * @param token the current delivery token
 * @param traceContext the trace context stored at scheduling, empty without one
 */
record TaskMeta(Instant scheduledAt, Instant dueAt, int attempt, String token, Map<String, String> traceContext) {

	static TaskMeta parse(String meta) {
		String[] parts = meta.split("\\|", 6);
		Map<String, String> traceContext = (parts.length > 5) ? TraceContextCodec.decode("|" + parts[5]) : Map.of();
		return new TaskMeta(Instant.ofEpochMilli(Long.parseLong(parts[0])),
				Instant.ofEpochMilli(Long.parseLong(parts[1])), Integer.parseInt(parts[2]), parts[3], traceContext);
	}

}
