package dev.baton.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce waits twice as long before each reconnect attempt, up to 30 s, so that after an outage
 * of some seconds it reconnects only seconds after Redis is back: every lease extension and
 * visibility extension meanwhile fails although Redis answers. Found by the fault-finding
 * harness (standalone seed 3326635156414455949): after a cut of 2.3 s, a handler whose task another
 * instance took learned so 2 s after the link worked again, as the reconnect's handshake was reset
 * too and the next attempt came a doubled delay later.
 */
@RedisTest
class BatonReconnectAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				BatonReconnectAutoConfiguration.class));

	@Test
	void reconnectsWithinTheMaxReconnectDelayAfterALongOutage(RedisServer server) throws Exception {
		try (RedisProxy proxy = RedisProxy.to(server)) {
			this.runner.withPropertyValues("spring.data.redis.host=" + proxy.host(),
					"spring.data.redis.port=" + proxy.port())
				.run((context) -> {
					StatefulRedisConnection<byte[], byte[]> connection = nativeConnection(
							context.getBean(LettuceConnectionFactory.class));
					connection.sync().ping();
					proxy.cut();
					Thread.sleep(4000);
					proxy.heal();
					// The first reconnect's handshake is reset: the attempt after it waits a doubled delay.
					proxy.dropNextReplyAndReset();
					long healed = System.nanoTime();
					awaitPing(connection);
					// Two attempts of at most 1 s each, and slack for a shared machine.
					assertThat(Duration.ofNanos(System.nanoTime() - healed)).isLessThan(Duration.ofMillis(3000));
				});
		}
	}

	@Test
	void capsLettucesReconnectDelay() {
		this.runner.withPropertyValues("baton.redis.max-reconnect-delay=250ms")
			.run((context) -> assertThat(
					context.getBean(ClientResources.class).reconnectDelay().createDelay(20))
				.isEqualTo(Duration.ofMillis(250)));
	}

	@Test
	void refusesAMaxReconnectDelayThatIsNotPositive() {
		this.runner.withPropertyValues("baton.redis.max-reconnect-delay=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("baton.redis.max-reconnect-delay must be positive, was PT0S"));
	}

	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> nativeConnection(LettuceConnectionFactory factory) {
		return ((RedisAsyncCommands<byte[], byte[]>) factory.getConnection().getNativeConnection())
			.getStatefulConnection();
	}

	private static void awaitPing(StatefulRedisConnection<byte[], byte[]> connection) throws InterruptedException {
		while (true) {
			try {
				connection.async().ping().get(200, TimeUnit.MILLISECONDS);
				return;
			}
			catch (Exception ex) {
				Thread.sleep(10);
			}
		}
	}

}
