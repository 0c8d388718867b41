package dev.baton.autoconfigure.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.observation.DefaultLockAcquisitionObservationConvention;
import dev.baton.observation.LockAcquisitionContext;
import dev.baton.observation.LockAcquisitionObservationConvention;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;

@RedisTest
class BatonLockAutoConfigurationTests {

	private ApplicationContextRunner runner;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisServer server, StringRedisTemplate redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void providesALockManagerAndLocksAnnotatedMethods() {
		this.runner.withUserConfiguration(ReportConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockManager.class).hasSingleBean(DistributedLockAdvisor.class);
			Report report = context.getBean(Report.class);
			report.run();
			assertThat(report.lockedWhileRunning()).containsExactly(true);
			assertThat(this.redis.hasKey("baton:lock:{report}")).isFalse();
		});
	}

	@Test
	void anInvalidSettingFailsStartUpNamingItsProperty() {
		this.runner.withPropertyValues("baton.lock.lease-time=0s").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasStackTraceContaining("Invalid baton.lock.lease-time: Lease time must be at least 3 ms"));
		this.runner.withPropertyValues("baton.lock.command-timeout=-1s").run((context) -> assertThat(context)
			.hasFailed()
			.getFailure()
			.hasStackTraceContaining("Invalid baton.lock.command-timeout: "));
	}

	@Test
	void backsOffWhenUserDefinesLockManager() {
		LockManager custom = mock(LockManager.class);
		this.runner.withBean(LockManager.class, () -> custom)
			.run((context) -> assertThat(context).getBean(LockManager.class).isSameAs(custom));
	}

	@Test
	void backsOffWhenUserDefinesTheAdvisor() {
		this.runner.withBean("myAdvisor", DistributedLockAdvisor.class,
				() -> new DistributedLockAdvisor(() -> mock(LockManager.class), Duration.ZERO))
			.run((context) -> assertThat(context).getBeans(DistributedLockAdvisor.class).containsOnlyKeys("myAdvisor"));
	}

	@Test
	void isDisabledByProperty() {
		this.runner.withPropertyValues("baton.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockManager.class)
				.doesNotHaveBean(DistributedLockAdvisor.class));
	}

	@Test
	void appliesKeyPrefixAndDefaultWaitTime() {
		this.runner.withUserConfiguration(ReportConfiguration.class)
			.withPropertyValues("baton.lock.key-prefix=app:locks:", "baton.lock.wait-time=10s")
			.run((context) -> {
				LockLease held = context.getBean(LockManager.class).tryAcquire("report", Duration.ZERO).orElseThrow();
				assertThat(this.redis.hasKey("app:locks:{report}")).isTrue();
				Runnable release = held::release;
				Executors.newSingleThreadScheduledExecutor().schedule(release, 300, TimeUnit.MILLISECONDS);

				context.getBean(Report.class).run();

				assertThat(context.getBean(Report.class).lockedWhileRunning()).containsExactly(false);
			});
	}

	@Test
	void namesTheInstanceThatHoldsALock() {
		this.runner.withPropertyValues("baton.lock.instance-name=orders-7").run((context) -> {
			LockManager locks = context.getBean(LockManager.class);
			LockLease held = locks.tryAcquire("report", Duration.ZERO).orElseThrow();
			assertThat(locks.holderOf("report")).hasValue("orders-7");
			held.release();
		});
		this.runner.withPropertyValues("baton.lock.instance-name=" + "x".repeat(129))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid baton.lock.instance-name: Instance name of 129 characters"));
	}

	@Test
	void limitsLockNamesAndMetricGroupsAsConfigured() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("baton.lock.max-name-length=64", "baton.lock.max-metric-groups=1")
			.run((context) -> {
				LockManager locks = context.getBean(LockManager.class);
				locks.tryAcquire("first", Duration.ZERO).orElseThrow().release();
				locks.tryAcquire("second", Duration.ZERO).orElseThrow().release();
				assertThat(context.getBean(MeterRegistry.class).get("baton.lock.acquire").tag("lock", "other").timer().count())
					.isEqualTo(1);
				assertThatIllegalArgumentException().isThrownBy(() -> locks.tryAcquire("x".repeat(65), Duration.ZERO))
					.withMessageContaining("longer than the maximum of 64");
			});
	}

	@Test
	void waitsForAsManyReplicasAsConfigured() {
		// The shared server has no replica: an acquisition waiting for one is refused and given up.
		this.runner.withPropertyValues("baton.lock.replica-acknowledgement.replicas=1",
				"baton.lock.replica-acknowledgement.timeout=50ms")
			.run((context) -> {
				assertThatThrownBy(() -> context.getBean(LockManager.class).tryAcquire("report", Duration.ZERO))
					.isInstanceOf(LockUnavailableException.class)
					.hasMessageContaining("0 of 1 replica(s) had it in time");
				await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{report}"));
			});
	}

	@Test
	void publishesLostLocksAsApplicationEvents() {
		this.runner.withUserConfiguration(LostLocks.class)
			.withPropertyValues("baton.lock.lease-time=600ms")
			.run((context) -> {
				LockLease lease = context.getBean(LockManager.class).tryAcquire("job", Duration.ZERO).orElseThrow();
				long token = lease.fencingToken();
				this.redis.delete("baton:lock:{job}");

				await().atMost(Duration.ofSeconds(5)).until(() -> !context.getBean(LostLocks.class).events.isEmpty());
				assertThat(context.getBean(LostLocks.class).events).singleElement()
					.isEqualTo(new LockLostEvent("job", "job", token));
			});
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void tellsOfLostLocksOnAVirtualThreadButRenewsOnAPlatformThreadWhenVirtualThreadsAreEnabled() {
		this.runner.withUserConfiguration(LostLocks.class)
			.withPropertyValues("spring.threads.virtual.enabled=true", "baton.lock.lease-time=600ms")
			.run((context) -> {
				context.getBean(LockManager.class).tryAcquire("job", Duration.ZERO).orElseThrow();
				this.redis.delete("baton:lock:{job}");

				LostLocks lostLocks = context.getBean(LostLocks.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> !lostLocks.threads.isEmpty());
				assertThat(lostLocks.threads.get(0).getName()).isEqualTo("baton-lock-events");
				assertThat(BatonThreads.isVirtual(lostLocks.threads.get(0))).isTrue();
				// Only platform threads are listed here: a renewal must not wait for a carrier thread.
				assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
					.contains("baton-lock-watchdog");
			});
	}

	@Test
	void recordsMetricsInTheApplicationsRegistry() {
		this.runner.withUserConfiguration(ReportConfiguration.class)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				context.getBean(Report.class).run();
				assertThat(context.getBean(MeterRegistry.class).get("baton.lock.acquire").tag("lock", "report").timer().count())
					.isEqualTo(1);
			});
	}

	@Test
	void observesAcquisitionsInBootsObservationRegistryWithTheApplicationsConvention() {
		this.runner.withUserConfiguration(ReportConfiguration.class)
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class))
			.withBean(LockAcquisitionObservationConvention.class, TenantConvention::new)
			.run((context) -> {
				context.getBean(Report.class).run();
				assertThat(context.getBean(MeterRegistry.class)
					.get("baton.lock.acquire")
					.tags("lock", "report", "outcome", "acquired", "tenant", "acme")
					.timer()
					.count()).isEqualTo(1);
			});
	}

	/** Adds a tag of the application's to Baton's. */
	static class TenantConvention extends DefaultLockAcquisitionObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
			return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
		}

	}

	@Test
	void failsAtStartupNamingAnInvalidMethod() {
		this.runner.withBean(BadReport.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasStackTraceContaining("@DistributedLock on BadReport.run(): waitTime 'soon' is not a duration"));
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportConfiguration {

		@Bean
		Report report(StringRedisTemplate redis) {
			return new Report(redis);
		}

	}

	static class Report {

		private final StringRedisTemplate redis;

		private final List<Boolean> lockedWhileRunning = new CopyOnWriteArrayList<>();

		Report(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "report")
		public void run() {
			this.lockedWhileRunning.add(this.redis.hasKey("baton:lock:{report}"));
		}

		// Through a method: the proxy has fields of its own.
		public List<Boolean> lockedWhileRunning() {
			return this.lockedWhileRunning;
		}

	}

	static class BadReport {

		@DistributedLock(waitTime = "soon")
		public void run() {
		}

	}

	static class LostLocks {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		@EventListener
		void lost(LockLostEvent event) {
			this.events.add(event);
			this.threads.add(Thread.currentThread());
		}

	}

}
