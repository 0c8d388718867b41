package dev.baton.autoconfigure.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.MAP;

@RedisTest
class BatonInfoContributorAutoConfigurationTests {

	private static final String REDIS_ENABLED = "management.info.baton.redis.enabled=true";

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonInfoContributorAutoConfiguration.class));

	@Test
	void reportsBatonVersionOnlyByDefault(RedisServer server) {
		this.runner.withPropertyValues(redis(server)).run((context) -> {
			Map<String, Object> baton = baton(context);

			assertThat((String) baton.get("version")).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
			assertThat(baton).containsOnlyKeys("version");
		});
	}

	@Test
	void reportsRedisServerVersionAndModeWhenEnabled(RedisServer server) {
		this.runner.withPropertyValues(redis(server)).withPropertyValues(REDIS_ENABLED).run((context) -> {
			Map<String, Object> baton = baton(context);

			assertThat(baton.get("version")).isNotNull();
			assertThat(baton.get("redis")).isEqualTo(Map.of("version", server.version(), "mode", "standalone"));
		});
	}

	@Test
	void servesTheCachedAnswerWhileRedisDoesNotAnswer() {
		RedisServer server = RedisServers.startLocal();
		try {
			this.runner.withPropertyValues(redis(server)).withPropertyValues(REDIS_ENABLED).run((context) -> {
				Object answer = baton(context).get("redis");
				assertThat(answer).asInstanceOf(MAP).containsKey("version");
				pauseClients(context.getBean(RedisConnectionFactory.class), Duration.ofSeconds(3));

				long start = System.nanoTime();
				assertThat(baton(context).get("redis")).isEqualTo(answer);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
			});
		}
		finally {
			server.close();
		}
	}

	/** 300 requests with Redis paused once started 300 threads; now they share one INFO. */
	@Test
	void asksAtMostOneInfoAtATimeWhileRedisDoesNotAnswer() {
		RedisServer server = RedisServers.startLocal();
		try {
			this.runner.withPropertyValues(redis(server)).withPropertyValues(REDIS_ENABLED).run((context) -> {
				openConnection(context);
				pauseClients(context.getBean(RedisConnectionFactory.class), Duration.ofSeconds(4));
				ExecutorService requests = Executors.newFixedThreadPool(20);
				try {
					List<Future<Map<String, Object>>> answers = new ArrayList<>();
					for (int i = 0; i < 20; i++) {
						answers.add(requests.submit(() -> baton(context)));
					}
					for (Future<Map<String, Object>> answer : answers) {
						assertThat(answer.get().get("redis")).asInstanceOf(MAP).containsOnlyKeys("error");
					}
					assertThat(Thread.getAllStackTraces().keySet())
						.filteredOn((thread) -> thread.getName().startsWith("baton-info"))
						.hasSizeLessThanOrEqualTo(1);
				}
				finally {
					requests.shutdownNow();
				}
			});
		}
		finally {
			server.close();
		}
	}

	@Test
	void reportsAnErrorWithinOneSecondWhenRedisDoesNotAnswer() {
		RedisServer server = RedisServers.startLocal();
		try {
			this.runner.withPropertyValues(redis(server)).withPropertyValues(REDIS_ENABLED).run((context) -> {
				openConnection(context);
				pauseClients(context.getBean(RedisConnectionFactory.class), Duration.ofSeconds(4));

				long start = System.nanoTime();
				Map<String, Object> baton = baton(context);

				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
				assertThat(baton.get("version")).isNotNull();
				assertThat(baton.get("redis")).asInstanceOf(MAP)
					.containsOnlyKeys("error")
					.containsEntry("error", "Redis did not answer INFO server within 1000 ms");
			});
		}
		finally {
			server.close();
		}
	}

	/** The exception's message would name the host and port: the answer says only what failed. */
	@Test
	void reportsAGenericErrorWhenRedisIsDown() {
		RedisServer server = RedisServers.startLocal();
		server.close();
		this.runner.withPropertyValues(redis(server)).withPropertyValues(REDIS_ENABLED).run((context) -> {
			long start = System.nanoTime();
			Map<String, Object> baton = baton(context);

			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(baton.get("redis")).isEqualTo(Map.of("error", "Redis INFO server failed"));
		});
	}

	@Test
	void backsOffWhenUserDefinesBatonInfoContributor(RedisServer server) {
		InfoContributor own = (builder) -> builder.withDetail("baton", "own");
		this.runner.withPropertyValues(redis(server))
			.withBean("batonInfoContributor", InfoContributor.class, () -> own)
			.run((context) -> assertThat(context).getBean("batonInfoContributor").isSameAs(own));
	}

	@Test
	void backsOffWhenDisabled(RedisServer server) {
		this.runner.withPropertyValues(redis(server)).withPropertyValues("management.info.baton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("batonInfoContributor"));
	}

	/** The application's connection is open before Redis stops answering. */
	private static void openConnection(AssertableApplicationContext context) {
		new StringRedisTemplate(context.getBean(RedisConnectionFactory.class)).hasKey("any");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> baton(AssertableApplicationContext context) {
		Info.Builder builder = new Info.Builder();
		context.getBean("batonInfoContributor", InfoContributor.class).contribute(builder);
		return (Map<String, Object>) builder.build().getDetails().get("baton");
	}

	/** Redis answers nothing, to no client, for the given time: it seems to hang. */
	private static void pauseClients(RedisConnectionFactory connectionFactory, Duration pause) {
		new StringRedisTemplate(connectionFactory).execute((RedisCallback<Object>) (connection) -> connection
			.execute("CLIENT", bytes("PAUSE"), bytes(String.valueOf(pause.toMillis())), bytes("ALL")));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static String[] redis(RedisServer server) {
		return new String[] { "spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port() };
	}

}
