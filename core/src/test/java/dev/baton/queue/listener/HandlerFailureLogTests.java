package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.NewTask;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** An outage that fails every task the same way logs one stack trace, not one per task. */
@RedisTest
class HandlerFailureLogTests {

	@Test
	void identicalFailuresLogTheirStackTraceOnce(RedisConnectionFactory connectionFactory) {
		Logger logger = (Logger) LoggerFactory.getLogger(DelayedTaskListenerContainer.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		ListenerSettings settings = new ListenerSettings(3,
				new BackoffPolicy(Duration.ofMinutes(1), 2.0, Duration.ofMinutes(1)), Duration.ofSeconds(30), 32, 0,
				Duration.ofMillis(200), Duration.ofSeconds(2));
		try (ListenerContext app = new ListenerContext(connectionFactory, (queue) -> settings, new OutageHandler())
			.start()) {
			DelayQueue<Parcel> queue = app.queues.get("outage", Parcel.class);
			queue.scheduleAll(IntStream.range(0, 50)
				.mapToObj((i) -> NewTask.of("p-" + i, new Parcel("p-" + i, i), Duration.ZERO))
				.toList());

			// Each failure is logged before its retry is scheduled
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().scheduled() == 50);

			List<ILoggingEvent> stackTraces = List.copyOf(appender.list)
				.stream()
				.filter((event) -> event.getLevel() == Level.WARN && event.getThrowableProxy() != null)
				.toList();
			assertThat(stackTraces).singleElement()
				.satisfies((event) -> assertThat(event.getFormattedMessage()).contains("failed on attempt 1 of 3"));
		}
		finally {
			logger.detachAppender(appender);
		}
	}

	static class OutageHandler {

		final AtomicInteger calls = new AtomicInteger();

		@DelayedTask(queue = "outage")
		void handle(Parcel parcel) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("payment provider unreachable");
		}

	}

}
