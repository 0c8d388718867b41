package dev.baton.queue.redis;

import java.time.Instant;

/**
 * A task's metadata as the scripts store it: {@code scheduledAt|dueAt|attempt|token|sequence},
 * times in epoch milliseconds of the Redis clock.
 *
 * @param scheduledAt when the task was scheduled
 * @param dueAt when the task falls due
 * @param attempt deliveries so far
 * @param token the current delivery token
 */
record TaskMeta(Instant scheduledAt, Instant dueAt, int attempt, String token) {

	static TaskMeta parse(String meta) {
		String[] parts = meta.split("\\|");
		return new TaskMeta(Instant.ofEpochMilli(Long.parseLong(parts[0])),
				Instant.ofEpochMilli(Long.parseLong(parts[1])), Integer.parseInt(parts[2]), parts[3]);
	}

}
