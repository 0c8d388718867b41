package dev.baton.queue.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads and rewrites the payload of a task as stored in Redis, in either storage format, the way
 * someone with access to Redis could: for tests of what Baton does with payloads changed behind
 * its back. Format 1's layout is the one {@code packTask} in common.lua writes.
 */
final class StoredPayloads {

	/** The format byte, the meta's numbers (6 + 6 + 4 + 8 + 8 bytes) and the trace context's length. */
	private static final int TASK_HEADER = 1 + 32 + 2;

	private StoredPayloads() {
	}

	/** The stored payload of a waiting or in-flight task of the queue's (first) partition. */
	static String read(RedisConnectionFactory connectionFactory, String queue, String id) {
		byte[] value = value(connectionFactory, queue, id);
		return new String(value, payloadStart(value), value.length - payloadStart(value), StandardCharsets.UTF_8);
	}

	/** Replaces the stored payload of a task, keeping what is stored beside it. */
	static void write(RedisConnectionFactory connectionFactory, String queue, String id, String payload) {
		byte[] value = value(connectionFactory, queue, id);
		byte[] replacement = ByteBuffer.allocate(payloadStart(value) + payload.getBytes(StandardCharsets.UTF_8).length)
			.put(value, 0, payloadStart(value))
			.put(payload.getBytes(StandardCharsets.UTF_8))
			.array();
		writeValue(connectionFactory, queue, id, replacement);
	}

	/** Replaces the whole stored value of a task, in whatever format the bytes are. */
	static void writeValue(RedisConnectionFactory connectionFactory, String queue, String id, byte[] value) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			connection.hashCommands().hSet(tasksKey(queue), bytes(id), value);
		}
	}

	/** The whole stored value of a task in the tasks hash: its payload (format 0), or meta and payload (format 1). */
	static byte[] value(RedisConnectionFactory connectionFactory, String queue, String id) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			byte[] value = connection.hashCommands().hGet(tasksKey(queue), bytes(id));
			if (value == null) {
				throw new IllegalStateException("No task '" + id + "' stored in queue '" + queue + "'");
			}
			return value;
		}
	}

	private static int payloadStart(byte[] value) {
		if (value.length == 0 || value[0] != 1) {
			return 0;
		}
		int traceLength = ByteBuffer.wrap(Arrays.copyOfRange(value, TASK_HEADER - 2, TASK_HEADER)).getShort() & 0xFFFF;
		return TASK_HEADER + traceLength;
	}

	private static byte[] tasksKey(String queue) {
		return bytes(QueueKeys.of(RedisDelayQueues.DEFAULT_KEY_PREFIX, queue).tasks());
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
