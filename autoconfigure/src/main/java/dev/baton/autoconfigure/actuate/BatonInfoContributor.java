package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Adds {@code baton} to the info endpoint: Baton's version and the Redis server's version and
 * mode ({@code redis_version} and {@code redis_mode} of {@code INFO server}). Redis is asked
 * within a short timeout, so that the info endpoint never hangs on a Redis that does not answer;
 * the error is reported instead.
 */
final class BatonInfoContributor implements InfoContributor {

	private static final String VERSION_RESOURCE = "baton-version.properties";

	/** A thread per call: a Redis that does not answer blocks it, never the caller. */
	private static final Executor DAEMON_THREAD = (task) -> {
		Thread thread = new Thread(task, "baton-info");
		thread.setDaemon(true);
		thread.start();
	};

	private final RedisConnectionFactory connectionFactory;

	private final Duration timeout;

	private final String batonVersion = batonVersion();

	BatonInfoContributor(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, Object> baton = new LinkedHashMap<>();
		baton.put("version", this.batonVersion);
		baton.put("redis", redis());
		builder.withDetail("baton", baton);
	}

	private Map<String, String> redis() {
		CompletableFuture<Properties> info = CompletableFuture.supplyAsync(this::serverInfo, DAEMON_THREAD);
		try {
			Properties server = info.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
			Map<String, String> redis = new LinkedHashMap<>();
			redis.put("version", property(server, "redis_version"));
			redis.put("mode", property(server, "redis_mode"));
			return redis;
		}
		catch (TimeoutException ex) {
			info.cancel(true);
			return Map.of("error", "Redis did not answer INFO server within " + this.timeout.toMillis() + " ms");
		}
		catch (ExecutionException ex) {
			return Map.of("error", String.valueOf(ex.getCause().getMessage()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Map.of("error", "Interrupted while waiting for Redis");
		}
	}

	private Properties serverInfo() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties server = connection.serverCommands().info("server");
			return (server != null) ? server : new Properties();
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

	private static String batonVersion() {
		try (InputStream in = BatonInfoContributor.class.getResourceAsStream(VERSION_RESOURCE)) {
			Properties properties = new Properties();
			if (in != null) {
				properties.load(in);
			}
			@Nullable String version = properties.getProperty("version");
			return (version != null) ? version : "unknown";
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + VERSION_RESOURCE, ex);
		}
	}

}
