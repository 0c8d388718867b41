package dev.baton.queue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts that change and read a queue, loaded once from the resources next to this
 * class. Every script returns an array.
 */
enum QueueScript {

	SCHEDULE("schedule.lua"), CLAIM("claim.lua"), SETTLE("settle.lua"), CANCEL("cancel.lua"),
	RESCHEDULE("reschedule.lua"), REDRIVE("redrive.lua"), PURGE_DEAD_LETTER("purge-dead-letter.lua"),
	FIND("find.lua"), PEEK("peek.lua"), STATS("stats.lua"), DEAD_LETTERS("dead-letters.lua");

	private final RedisScript<List<Object>> script;

	QueueScript(String resource) {
		this.script = listScript(read(resource));
	}

	/**
	 * Run the script; the template's serialiser turns bulk replies into strings and leaves
	 * integers as {@link Long}.
	 */
	List<Object> run(StringRedisTemplate redis, List<String> keys, List<String> args) {
		List<Object> reply = redis.execute(this.script, keys, args.toArray());
		return (reply != null) ? reply : List.of();
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> listScript(String source) {
		return (RedisScript) RedisScript.of(source, List.class);
	}

	private static String read(String resource) {
		try (InputStream in = QueueScript.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Missing Lua script " + resource);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
