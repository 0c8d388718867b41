package dev.baton.internal;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/** The Lettuce connection behind asynchronous commands. */
final class LettuceConnections {

	private LettuceConnections() {
	}

	/**
	 * The connection that carries the commands. Lettuce 7 deprecates reaching it through its
	 * commands, but a connection factory shows its shared connection only as commands.
	 * @return the connection, or {@code null} for commands that are none of Lettuce's own
	 */
	@SuppressWarnings("deprecation")
	static @Nullable StatefulConnection<byte[], byte[]> of(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
			return standalone.getStatefulConnection();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection();
		}
		return null;
	}

}
