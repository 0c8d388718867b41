package dev.baton.support;

import java.util.Properties;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** How often the Redis server ran commands, from {@code INFO commandstats}. */
public final class CommandStats {

	private CommandStats() {
	}

	/**
	 * Calls of the given commands since the server started, those that scripts made included.
	 * @param redis the server
	 * @param commands lower-case command names, e.g. {@code evalsha}
	 * @return the sum of their calls
	 */
	public static long calls(StringRedisTemplate redis, String... commands) {
		Properties stats = redis
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		long calls = 0;
		for (String command : commands) {
			String line = stats.getProperty("cmdstat_" + command);
			if (line != null) {
				calls += Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

}
