package dev.baton.autoconfigure.queue;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.test.AclRedisServer;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class EvictionPolicyCheckTests {

	@Test
	void warnsWhenRedisMayEvictTasksAndStaysQuietUnderNoeviction() {
		assertThat(warningsUnder("allkeys-lru")).singleElement().asString().contains("maxmemory-policy allkeys-lru");
		assertThat(warningsUnder("noeviction")).isEmpty();
	}

	@Test
	void saysOnceWhatToCheckWhenInfoIsDenied() {
		ListAppender<ILoggingEvent> appender = recordLog();
		try (AclRedisServer redis = AclRedisServer.start()) {
			RedisConnectionFactory noInfo = redis.user("no-dangerous", "~*", "&*", "+@all", "-@dangerous");

			assertThat(new EvictionPolicyCheck(noInfo).check()).isNull();
		}
		finally {
			stopRecording(appender);
		}

		assertThat(appender.list).singleElement().satisfies((event) -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains("maxmemory-policy noeviction", "NOPERM", "+info");
		});
	}

	private static List<String> warningsUnder(String policy) {
		ListAppender<ILoggingEvent> appender = recordLog();
		try (LocalRedisServer server = RedisServers.startLocal("--maxmemory-policy", policy)) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(server.host(), server.port());
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			try {
				assertThat(new EvictionPolicyCheck(connectionFactory).check()).isEqualTo(policy);
			}
			finally {
				connectionFactory.destroy();
			}
		}
		finally {
			stopRecording(appender);
		}
		return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

	private static ListAppender<ILoggingEvent> recordLog() {
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		((Logger) LoggerFactory.getLogger(EvictionPolicyCheck.class)).addAppender(appender);
		return appender;
	}

	private static void stopRecording(ListAppender<ILoggingEvent> appender) {
		((Logger) LoggerFactory.getLogger(EvictionPolicyCheck.class)).detachAppender(appender);
	}

}
