package dev.baton.test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A private {@code redis-server} process for tests that run as restricted ACL users, each
 * connected through a Lettuce connection factory of its own with username and password.
 *
 * <pre class="code">
 * try (AclRedisServer redis = AclRedisServer.start()) {
 *     RedisConnectionFactory app1 = redis.user("app1", "~app1:*", "&amp;app1:*", "+&#064;all");
 *     ...
 * }
 * </pre>
 */
public final class AclRedisServer implements AutoCloseable {

	private static final String PASSWORD = "secret";

	private final LocalRedisServer server;

	private final LettuceConnectionFactory admin;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private AclRedisServer(LocalRedisServer server) {
		this.server = server;
		this.admin = connect(null);
	}

	/**
	 * Starts a server, or aborts the calling test (skipped, with the reason) where its Redis
	 * cannot restrict channels: ACL channel rules ({@code &pattern}, {@code resetchannels}) exist
	 * since Redis 6.2.
	 * @return the running server, stopped by {@link #close()} or when this JVM exits
	 */
	public static AclRedisServer start() {
		LocalRedisServer server = RedisServers.startLocal();
		String[] version = server.version().split("\\.");
		if (Integer.parseInt(version[0]) * 100 + Integer.parseInt(version[1]) < 602) {
			server.close();
			Assumptions.abort("Redis " + server.version() + " has no ACL channel rules (since 6.2)");
		}
		return new AclRedisServer(server);
	}

	/**
	 * The default user's connection, allowed everything.
	 * @return a started connection factory, closed with this
	 */
	public LettuceConnectionFactory admin() {
		return this.admin;
	}

	/**
	 * Creates (or replaces) a user with exactly the given rules, and connects as that user.
	 * @param name the user name
	 * @param rules the rules after {@code reset resetchannels on >password} (no channel at all,
	 * whatever the version's {@code acl-pubsub-default}), e.g. {@code "~app1:*", "&app1:*", "+@all"}
	 * @return a started connection factory, closed with this
	 */
	public LettuceConnectionFactory user(String name, String... rules) {
		acl(Stream.concat(Stream.of("SETUSER", name, "reset", "resetchannels", "on", ">" + PASSWORD), Stream.of(rules)).toArray(String[]::new));
		return connect(name);
	}

	/**
	 * Runs an {@code ACL} subcommand as the default user.
	 * @param arguments the subcommand and its arguments, e.g. {@code "DELUSER", "app1"}
	 * @return Redis's reply
	 */
	public @Nullable Object acl(String... arguments) {
		try (RedisConnection connection = this.admin.getConnection()) {
			return connection.execute("ACL", Stream.of(arguments).map((argument) -> argument.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new));
		}
	}

	/**
	 * The server, for its address and version.
	 * @return the running server
	 */
	public LocalRedisServer server() {
		return this.server;
	}

	private LettuceConnectionFactory connect(@Nullable String user) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", this.server.port());
		if (user != null) {
			configuration.setUsername(user);
			configuration.setPassword(PASSWORD);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		this.connectionFactories.add(factory);
		return factory;
	}

	/** Closes the connection factories and stops the server. */
	@Override
	public void close() {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.server.close();
	}

}
