package dev.baton.support;

import java.time.Duration;
import java.util.function.Function;

import dev.baton.test.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * One command sent straight to one server of a replicated set or a cluster, on a connection of its
 * own, to see what that server holds whatever the application's connection does.
 */
public final class DirectRedis {

	private DirectRedis() {
	}

	/** The server's {@code INFO replication} section. */
	public static String replicationInfo(RedisServer server) {
		return run(server, (commands) -> commands.info("replication"));
	}

	/** The value of a string key on that server, or {@code null}. */
	public static String get(RedisServer server, String key) {
		return run(server, (commands) -> commands.get(key));
	}

	/** Whether the key exists on that server. */
	public static boolean exists(RedisServer server, String key) {
		return run(server, (commands) -> commands.exists(key)) == 1;
	}

	/**
	 * Makes the server hold every write back for a while ({@code CLIENT PAUSE ... WRITE}); reads,
	 * replication and the sentinels' checks go on.
	 */
	public static void pauseWrites(RedisServer server, Duration pause) {
		run(server, (commands) -> commands.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(pause.toMillis()).add("WRITE")));
	}

	/** A field of the server's {@code INFO replication} section, or {@code "-1"} if it has none. */
	public static String replicationField(RedisServer server, String field) {
		for (String line : replicationInfo(server).split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).trim();
			}
		}
		return "-1";
	}

	private static <T> T run(RedisServer server, Function<RedisCommands<String, String>, T> command) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return command.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

}
