package dev.baton.test.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

/** Waits for a server to answer and reads its version and process id. */
final class ServerProbe {

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private ServerProbe() {
	}

	/**
	 * Returns the server's {@code redis_version}, retrying the connection until {@code timeout}.
	 * @throws IllegalStateException if the server does not answer in time
	 */
	static String awaitVersion(String url, Duration timeout) {
		return awaitServer(url, timeout, () -> true).version();
	}

	/**
	 * Returns what the server at {@code url} says about itself, retrying the connection until
	 * {@code timeout} and giving up as soon as {@code serverAlive} turns false.
	 * @throws IllegalStateException if the server does not answer in time
	 */
	static ServerIdentity awaitServer(String url, Duration timeout, BooleanSupplier serverAlive) {
		long deadline = System.nanoTime() + timeout.toNanos();
		@Nullable RuntimeException last = null;
		while (System.nanoTime() < deadline && serverAlive.getAsBoolean()) {
			try {
				return identify(url);
			}
			catch (RuntimeException ex) {
				last = ex;
				sleepBriefly();
			}
		}
		throw new IllegalStateException("Redis at " + url + " did not answer within " + timeout, last);
	}

	private static ServerIdentity identify(String url) {
		RedisURI uri = RedisURI.create(url);
		uri.setTimeout(CONNECT_TIMEOUT);
		RedisClient client = RedisClient.create(uri);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String info = connection.sync().info("server");
			return new ServerIdentity(field(info, "redis_version", "unknown"),
					Long.parseLong(field(info, "process_id", "-1")));
		}
		finally {
			client.shutdown(0, 0, TimeUnit.MILLISECONDS);
		}
	}

	private static String field(String info, String name, String fallback) {
		return info.lines()
			.filter((line) -> line.startsWith(name + ":"))
			.map((line) -> line.substring(name.length() + 1).trim())
			.findFirst()
			.orElse(fallback);
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(50);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

	/** A server's version and the process id it reports ({@code -1} when it does not say). */
	record ServerIdentity(String version, long processId) {
	}

}
