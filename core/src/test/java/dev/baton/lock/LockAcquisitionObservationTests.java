package dev.baton.lock;

import java.time.Duration;

import dev.baton.observation.DefaultLockAcquisitionObservationConvention;
import dev.baton.observation.LockAcquisitionContext;
import dev.baton.test.RedisTest;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisitions are observations: one source for the {@code baton.lock.acquire} timer and for
 * spans, named and tagged by a convention the application can replace.
 */
@RedisTest
class LockAcquisitionObservationTests {

	private final SimpleTracer tracer = new SimpleTracer();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private TestLockManagers managers;

	@BeforeEach
	void observe(RedisConnectionFactory connectionFactory) {
		this.managers = new TestLockManagers(connectionFactory);
		this.observations.observationConfig()
			.observationHandler(new DefaultTracingObservationHandler(this.tracer))
			.observationHandler(new DefaultMeterObservationHandler(this.managers.meters));
	}

	@AfterEach
	void close() {
		this.managers.close();
	}

	@Test
	void acquisitionIsASpanAndATimerTaggedWithTheGroupNotTheKey() {
		RedisLockManager holder = this.managers.manager((builder) -> builder.observationRegistry(this.observations));
		RedisLockManager other = this.managers.manager((builder) -> builder.observationRegistry(this.observations));
		LockLease lease = holder.tryAcquire(LockRequest.of("orders:42").group("orders").build()).orElseThrow();
		assertThat(other.tryAcquire(LockRequest.of("orders:42").group("orders").build())).isEmpty();
		lease.release();

		SimpleSpan acquired = this.tracer.getSpans().getFirst();
		assertThat(acquired.getName()).isEqualTo("acquire orders");
		assertThat(acquired.getTags()).containsEntry("lock", "orders")
			.containsEntry("outcome", "acquired")
			.containsEntry("baton.lock.name", "orders:42")
			.containsEntry("baton.lock.fencing-token", Long.toString(lease.fencingToken()));
		assertThat(this.tracer.getSpans().getLast().getTags()).containsEntry("outcome", "timeout")
			.doesNotContainKey("baton.lock.fencing-token");
		assertThat(this.managers.meters.get("baton.lock.acquire").tag("lock", "orders").timers()).hasSize(2);
		assertThat(this.managers.meters.find("baton.lock.acquire").tag("lock", "orders:42").timer()).isNull();
	}

	@Test
	void applicationConventionReplacesTheDefault() {
		RedisLockManager manager = this.managers.manager((builder) -> builder.observationRegistry(this.observations)
			.acquisitionObservationConvention(new TenantConvention()));
		manager.tryAcquire(LockRequest.of("orders:42").group("orders").build()).orElseThrow().release();

		assertThat(this.tracer.onlySpan().getTags()).containsEntry("tenant", "acme").containsEntry("lock", "orders");
		assertThat(this.managers.meters.get("baton.lock.acquire").tag("tenant", "acme").timer().count()).isOne();
	}

	@Test
	void withMetersAloneTheTimerStillComesFromTheObservation() {
		RedisLockManager manager = this.managers.manager();
		manager.tryAcquire(LockRequest.of("orders:1").group("orders").waitTime(Duration.ZERO).build()).orElseThrow().release();

		assertThat(this.managers.meters.get("baton.lock.acquire").tags("lock", "orders", "outcome", "acquired", "error",
				"none").timer().count()).isOne();
		assertThat(this.tracer.getSpans()).isEmpty();
	}

	/** Adds a tag of the application's to Baton's. */
	static class TenantConvention extends DefaultLockAcquisitionObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
			return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
		}

	}

}
