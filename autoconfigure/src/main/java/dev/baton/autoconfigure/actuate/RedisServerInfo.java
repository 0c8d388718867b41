package dev.baton.autoconfigure.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.internal.BatonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis server's version and mode ({@code redis_version} and {@code redis_mode} of
 * {@code INFO server}) for the info endpoint. The answer is kept for {@link #TIME_TO_LIVE}; at most
 * one {@code INFO} is in flight, on a thread of its own, and callers wait for it at most the
 * timeout, so a hanging Redis costs one blocked thread however often the endpoint is asked. Errors
 * are reported without the exception's message (it names hosts and ports); it is logged at DEBUG.
 */
final class RedisServerInfo {

	/** How long an answer is served before Redis is asked again: version and mode change on upgrades only. */
	static final Duration TIME_TO_LIVE = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(RedisServerInfo.class);

	private static final Executor DAEMON_THREAD = BatonThreads.PLATFORM.threadPerTask("baton-info");

	private final RedisConnectionFactory connectionFactory;

	private final Duration timeout;

	private @Nullable CompletableFuture<Map<String, String>> inFlight;

	private @Nullable Map<String, String> answer;

	private long answeredAt;

	RedisServerInfo(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	/** Version and mode, or a single {@code error}. */
	Map<String, String> get() {
		try {
			return ask().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			return Map.of("error", "Redis did not answer INFO server within " + this.timeout.toMillis() + " ms");
		}
		catch (ExecutionException ex) {
			logger.debug("Redis INFO server failed", ex.getCause());
			return Map.of("error", "Redis INFO server failed");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Map.of("error", "Interrupted while waiting for Redis");
		}
	}

	private synchronized CompletableFuture<Map<String, String>> ask() {
		if (this.answer != null && System.nanoTime() - this.answeredAt < TIME_TO_LIVE.toNanos()) {
			return CompletableFuture.completedFuture(this.answer);
		}
		if (this.inFlight == null) {
			CompletableFuture<Map<String, String>> info = CompletableFuture.supplyAsync(this::read, DAEMON_THREAD);
			this.inFlight = info;
			info.whenComplete((result, ex) -> answered(result));
			return info;
		}
		return this.inFlight;
	}

	private synchronized void answered(@Nullable Map<String, String> result) {
		this.inFlight = null;
		if (result != null) {
			this.answer = result;
			this.answeredAt = System.nanoTime();
		}
	}

	private Map<String, String> read() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties server = connection.serverCommands().info("server");
			Properties properties = (server != null) ? server : new Properties();
			Map<String, String> redis = new LinkedHashMap<>();
			redis.put("version", property(properties, "redis_version"));
			redis.put("mode", property(properties, "redis_mode"));
			return redis;
		}
	}

	/** A cluster connection prefixes each node's keys with {@code host:port.}: any node will do. */
	private static String property(Properties server, String name) {
		String value = server.getProperty(name);
		if (value != null) {
			return value;
		}
		return server.stringPropertyNames()
			.stream()
			.filter((key) -> key.endsWith("." + name))
			.sorted()
			.findFirst()
			.map(server::getProperty)
			.orElse("unknown");
	}

}
