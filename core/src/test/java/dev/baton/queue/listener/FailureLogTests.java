package dev.baton.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FailureLogTests {

	private final List<String> warnings = new ArrayList<>();

	private final List<Throwable> stackTraces = new ArrayList<>();

	private final AtomicLong nanos = new AtomicLong();

	private final FailureLog log = new FailureLog(new NoOpLog() {

		@Override
		public void warn(Object message, Throwable failure) {
			FailureLogTests.this.warnings.add((String) message);
			FailureLogTests.this.stackTraces.add(failure);
		}

	}, Duration.ofMinutes(1), this.nanos::get);

	@Test
	void anOutageLogsEachKindOfFailureWithItsStackTraceOncePerPeriod() {
		for (int i = 0; i < 1000; i++) {
			this.log.warn("Task 'p-" + i + "' failed on attempt 1", new IllegalStateException("provider down"));
			this.nanos.addAndGet(Duration.ofMillis(5).toNanos());
		}
		this.log.warn("Task 'x' failed on attempt 1", new IllegalArgumentException("bad input"));

		assertThat(this.warnings).containsExactly("Task 'p-0' failed on attempt 1", "Task 'x' failed on attempt 1");

		this.nanos.addAndGet(Duration.ofMinutes(1).toNanos());
		this.log.warn("Task 'p-1000' failed on attempt 2", new IllegalStateException("provider down"));

		assertThat(this.warnings).last()
			.isEqualTo("Task 'p-1000' failed on attempt 2 (and 999 more failure(s) like it, logged at DEBUG, "
					+ "since its last stack trace)");
		assertThat(this.stackTraces).hasSize(3).doesNotContainNull();
	}

}
