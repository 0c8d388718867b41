package dev.baton.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.stream.Stream;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample run on a machine with no Redis: when no {@code spring.data.redis.*} connection
 * is configured and nothing answers on {@code localhost:6379}, starts a {@code redis-server}
 * process on that port (as {@code baton-test} does for tests) and points the application at it.
 * That server lives and dies with this instance; several instances share one started alone
 * ({@link ServicesOnly}).
 */
class EmbeddedRedisFallback implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisFallback.class);

	private static final int DEFAULT_PORT = 6379;

	@Override
	public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
		ConfigurableEnvironment environment = event.getEnvironment();
		if (isConfigured(environment) || answersOnDefaultPort()) {
			return;
		}
		// On the default port, so that a second instance started later finds it without configuration.
		RedisServer server = RedisServers.startLocal(DEFAULT_PORT);
		logger.info("No Redis configured or running on localhost:" + DEFAULT_PORT + "; started an embedded "
				+ server.version() + " at " + server.url() + ", which stops with this instance (set "
				+ "spring.data.redis.host to use your own; for several instances, start Redis and the database "
				+ "alone first with " + ServicesOnly.ARGUMENT + ")");
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port())));
	}

	private static boolean isConfigured(ConfigurableEnvironment environment) {
		return Stream.of("spring.data.redis.url", "spring.data.redis.host", "spring.data.redis.port",
				"spring.data.redis.sentinel.master", "spring.data.redis.cluster.nodes")
			.anyMatch(environment::containsProperty);
	}

	private static boolean answersOnDefaultPort() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("localhost", DEFAULT_PORT), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
