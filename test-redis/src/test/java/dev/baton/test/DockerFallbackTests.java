package dev.baton.test;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.test.internal.ContainerRedis;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class DockerFallbackTests {

	@Test
	void withoutADockerEngineNothingIsLoggedAtError() {
		Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		root.addAppender(appender);
		boolean available;
		try {
			available = ContainerRedis.isDockerAvailable();
		}
		finally {
			root.detachAppender(appender);
		}
		assumeFalse(available, "a Docker engine answers here");
		assertThat(appender.list).noneMatch((event) -> event.getLevel().isGreaterOrEqual(Level.ERROR));
	}

}
