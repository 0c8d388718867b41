package dev.baton.autoconfigure.queue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class EvictionPolicyCheckTests {

	@Test
	void warnsWhenRedisMayEvictTasksAndStaysQuietUnderNoeviction() {
		assertThat(warningsUnder("allkeys-lru")).singleElement().asString().contains("maxmemory-policy allkeys-lru");
		assertThat(warningsUnder("noeviction")).isEmpty();
	}

	private static java.util.List<String> warningsUnder(String policy) {
		Logger logger = (Logger) LoggerFactory.getLogger(EvictionPolicyCheck.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
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
			logger.detachAppender(appender);
		}
		return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

}
