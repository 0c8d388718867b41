package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockRequest;
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
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acquisitions are observations: one source for the {@code baton.lock.acquire} timer and for
 * spans, named and tagged by a convention the application can replace.
 */
@RedisTest
class LockAcquisitionObservationTests {

	private final SimpleTracer tracer = new SimpleTracer();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	@BeforeEach
	void observe(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
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
	void acquisitionIsASpanAndATimerTaggedWithTheGroupNotTheKey() throws InterruptedException {
		RedisLockManager holder = this.managers.manager((builder) -> builder.observationRegistry(this.observations));
		RedisLockManager other = this.managers.manager((builder) -> builder.observationRegistry(this.observations));
		LockLease lease = holder.tryAcquire(LockRequest.of("orders:42").group("orders").build()).orElseThrow();
		assertThat(other.tryAcquire(LockRequest.of("orders:42").group("orders").build())).isEmpty();
		Thread releaser = new Thread(() -> {
			await().until(() -> this.redis.hasKey("baton:lock:{orders:42}:waiting"));
			lease.release();
		});
		releaser.start();
		LockLease waiter = other.tryAcquire(LockRequest.of("orders:42").group("orders").waitTime(Duration.ofSeconds(10)).build())
			.orElseThrow();
		releaser.join();
		waiter.release();

		List<SimpleSpan> spans = List.copyOf(this.tracer.getSpans());
		assertThat(spans).hasSize(3);
		assertThat(spans.get(0).getName()).isEqualTo("acquire orders");
		// Taken at once: the token is issued only when the holder asks for it.
		assertThat(spans.get(0).getTags()).containsEntry("lock", "orders")
			.containsEntry("outcome", "acquired")
			.containsEntry("baton.lock.name", "orders:42")
			.doesNotContainKey("baton.lock.fencing-token");
		assertThat(spans.get(1).getTags()).containsEntry("outcome", "timeout")
			.doesNotContainKey("baton.lock.fencing-token");
		// Taken after waiting: the acquiring script issued it.
		assertThat(spans.get(2).getTags()).containsEntry("outcome", "acquired")
			.containsEntry("baton.lock.fencing-token", Long.toString(waiter.fencingToken()));
		assertThat(this.managers.meters.get("baton.lock.acquire").tag("lock", "orders").timers()).hasSize(2);
		assertThat(this.managers.meters.find("baton.lock.acquire").tag("lock", "orders:42").timer()).isNull();
	}

	@Test
	void anAcquisitionInProgressIsTaggedSoNotAsAnError() throws Exception {
		RedisLockManager holder = this.managers.manager();
		RedisLockManager waiter = this.managers.manager((builder) -> builder.observationRegistry(this.observations));
		LockLease lease = holder.tryAcquire("orders:7", Duration.ZERO).orElseThrow();
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture.supplyAsync(
				() -> waiter.tryAcquire(LockRequest.of("orders:7").group("orders").waitTime(Duration.ofSeconds(10)).build()));
		await().until(() -> this.redis.hasKey("baton:lock:{orders:7}:waiting"));

		assertThat(this.managers.meters.get("baton.lock.acquire.active").tag("lock", "orders").longTaskTimer().getId().getTags())
			.anySatisfy((tag) -> assertThat(tag.getKey() + "=" + tag.getValue()).isEqualTo("outcome=in_progress"));
		lease.release();
		waiting.get(10, TimeUnit.SECONDS).orElseThrow().release();
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
