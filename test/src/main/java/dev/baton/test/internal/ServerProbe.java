package dev.baton.test.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

/** Waits for a server to answer and reads its version. */
final class ServerProbe {

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private ServerProbe() {
	}

	/**
	 * Returns the server's {@code redis_version}, retrying the connection until {@code timeout}.
	 * @throws IllegalStateException if the server does not answer in time
	 */
	static String awaitVersion(String url, Duration timeout) {
		return awaitVersion(url, timeout, () -> true);
	}

	/**
	 * Like {@link #awaitVersion(String, Duration)}, giving up as soon as {@code serverAlive}
	 * turns false.
	 */
	static String awaitVersion(String url, Duration timeout, BooleanSupplier serverAlive) {
		long deadline = System.nanoTime() + timeout.toNanos();
		@Nullable RuntimeException last = null;
		while (System.nanoTime() < deadline && serverAlive.getAsBoolean()) {
			try {
				return version(url);
			}
			catch (RuntimeException ex) {
				last = ex;
				sleepBriefly();
			}
		}
		throw new IllegalStateException("Redis at " + url + " did not answer within " + timeout, last);
	}

	private static String version(String url) {
		RedisURI uri = RedisURI.create(url);
		uri.setTimeout(CONNECT_TIMEOUT);
		RedisClient client = RedisClient.create(uri);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String info = connection.sync().info("server");
			return info.lines()
				.filter((line) -> line.startsWith("redis_version:"))
				.map((line) -> line.substring("redis_version:".length()).trim())
				.findFirst()
				.orElse("unknown");
		}
		finally {
			client.shutdown(0, 0, TimeUnit.MILLISECONDS);
		}
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

}
