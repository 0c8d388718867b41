package dev.baton.test;

/**
 * A running Redis server that tests can connect to.
 *
 * <p>Obtain the JVM-wide shared server with {@link RedisServers#shared()}, or start an extra
 * one with {@link RedisServers#startLocal(String...)}.
 */
public interface RedisServer extends AutoCloseable {

	/** Host name or address to connect to. */
	String host();

	/** TCP port to connect to. */
	int port();

	/** The server's {@code redis_version}, as reported by {@code INFO server}. */
	String version();

	/** How the server was provided, e.g. {@code "testcontainers"}, for logs and diagnostics. */
	String origin();

	/** A {@code redis://host:port} URL for this server. */
	default String url() {
		return "redis://" + host() + ":" + port();
	}

	/** Stops the server if this JVM started it; does nothing for an external server. */
	@Override
	void close();

}
