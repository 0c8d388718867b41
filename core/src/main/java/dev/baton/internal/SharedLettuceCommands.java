package dev.baton.internal;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The asynchronous commands of a {@link LettuceConnectionFactory}'s shared native connection,
 * looked up once and again only after the factory closed that connection (a reset, or a stop and
 * start). Going through a template for every script instead builds a {@code LettuceConnection}
 * with a dozen command facades each time, which cost more client CPU than the call itself.
 *
 * <p>Only a shared connection is kept: a dedicated one belongs to its pool and may carry another
 * caller's transaction once given back. A factory that validates its connection on every use
 * keeps doing so: Baton then takes the connection from it each time.
 */
final class SharedLettuceCommands {

	private final @Nullable LettuceConnectionFactory connectionFactory;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	SharedLettuceCommands(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = (connectionFactory instanceof LettuceConnectionFactory lettuce) ? lettuce : null;
	}

	/**
	 * The commands of the shared connection if it is open now, without waiting for anything.
	 * @return the commands, or {@code null} when no shared connection is open yet or none can be
	 * kept ({@link #connect()} tells which)
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> current() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		return (current != null && isOpen(current)) ? current : null;
	}

	/**
	 * Opens the shared connection if needed, which waits for Redis (within the connection's own
	 * timeouts, not Baton's).
	 * @return the commands of the shared connection, or {@code null} when the factory hands out no
	 * shared Lettuce connection or validates it on every use
	 * @throws RuntimeException if the factory cannot give a connection (not started, or stopped)
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> connect() {
		LettuceConnectionFactory factory = this.connectionFactory;
		if (factory == null || !factory.getShareNativeConnection() || factory.getValidateConnection()) {
			return null;
		}
		RedisClusterAsyncCommands<byte[], byte[]> current = current();
		if (current != null) {
			return current;
		}
		try (RedisConnection connection = factory.getConnection()) {
			current = (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> async)
					? bytes(async) : null;
		}
		this.commands = current;
		return current;
	}

	@SuppressWarnings("unchecked")
	static RedisClusterAsyncCommands<byte[], byte[]> bytes(RedisClusterAsyncCommands<?, ?> async) {
		return (RedisClusterAsyncCommands<byte[], byte[]>) async;
	}

	private static boolean isOpen(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		StatefulConnection<byte[], byte[]> connection = LettuceConnections.of(commands);
		return connection != null && connection.isOpen();
	}

}
