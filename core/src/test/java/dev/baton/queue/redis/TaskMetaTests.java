package dev.baton.queue.redis;

import java.time.Duration;
import java.util.Map;

import dev.baton.lock.LeaseToken;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The meta's tail: the trace context and the token of the lock a task holds, kept apart. */
class TaskMetaTests {

	private static final String FIXED = "1000|2000|1|42|0000000000000007";

	@Test
	void readsTheTraceContextAndTheLeaseApart() {
		LeaseToken token = new LeaseToken("export:1", LeaseToken.newOwner("web-1"), 9, Duration.ofSeconds(30));
		String tail = TraceContextCodec.withLease(TraceContextCodec.encode(Map.of("traceparent", "00-abc-def-01")), token);

		TaskMeta meta = TaskMeta.parse(FIXED + tail);

		assertThat(meta.traceContext()).containsExactly(Map.entry("traceparent", "00-abc-def-01"));
		assertThat(meta.lease()).isEqualTo(token);
		assertThat(TaskMeta.parse(FIXED + TraceContextCodec.withLease("", token)).traceContext()).isEmpty();
	}

	@Test
	void aPropagationFieldOfTheLeasesNameIsNotStored() {
		String tail = TraceContextCodec.encode(Map.of(TraceContextCodec.LEASE_FIELD, "forged", "b3", "1-2"));

		TaskMeta meta = TaskMeta.parse(FIXED + tail);

		assertThat(meta.lease()).isNull();
		assertThat(meta.traceContext()).containsExactly(Map.entry("b3", "1-2"));
	}

	@Test
	void aLeaseThatDoesNotReadLeavesTheTaskReadableWithoutOne() {
		TaskMeta meta = TaskMeta.parse(FIXED + "|b3=1-2\n" + TraceContextCodec.LEASE_FIELD + "=baton1.broken");

		assertThat(meta.lease()).isNull();
		assertThat(meta.traceContext()).containsExactly(Map.entry("b3", "1-2"));
		assertThat(meta.attempt()).isEqualTo(1);
	}

}
