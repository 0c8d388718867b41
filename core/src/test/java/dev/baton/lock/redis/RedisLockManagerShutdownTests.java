package dev.baton.lock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * A lock manager that is shutting down ({@link RedisLockManager#allReleased()}, then
 * {@link RedisLockManager#close()}): it never reports "all released" while it can still grant a
 * lease, a closed manager never grants, and reporting a loss never throws into a holder.
 */
@RedisTest
class RedisLockManagerShutdownTests {

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
		this.managers = new TestLockManagers(connectionFactory);
	}

	@AfterEach
	void closeManagers() {
		this.managers.close();
	}

	@Test
	void allReleasedWaitsForAWaiterThatAHolderHandsTheLockTo() throws Exception {
		RedisLockManager locks = this.managers.manager(Duration.ofMillis(600));
		LockLease holder = locks.tryAcquire("order:42", Duration.ZERO).orElseThrow();
		CompletableFuture<Optional<LockLease>> waiter = CompletableFuture
			.supplyAsync(() -> locks.tryAcquire("order:42", Duration.ofSeconds(10)));
		await().until(() -> this.redis.hasKey("baton:lock:{order:42}:waiting"));
		// What a graceful shutdown does: close once everything is released.
		CompletableFuture<Void> released = locks.allReleased().thenRun(locks::close);

		holder.release();
		LockLease handedOver = waiter.get(5, TimeUnit.SECONDS).orElseThrow();

		assertThat(released).as("the waiter holds the lock now").isNotDone();
		// Two leases long: only renewals keep it.
		Thread.sleep(1200);
		assertThat(handedOver.isValid()).isTrue();
		assertThat(this.redis.opsForValue().get("baton:lock:{order:42}")).isNotNull();
		handedOver.release();
		released.get(5, TimeUnit.SECONDS);
		assertThat(this.redis.hasKey("baton:lock:{order:42}")).isFalse();
		assertThat(this.managers.lostEvents).isEmpty();
	}

	@Test
	void allReleasedWaitsForAnAcquisitionInFlight() throws Exception {
		RedisLockManager locks = this.managers.manager();
		this.redis.opsForValue().set("baton:lock:{report}", "another-instance", Duration.ofMillis(500));
		CompletableFuture<Optional<LockLease>> waiter = CompletableFuture
			.supplyAsync(() -> locks.tryAcquire("report", Duration.ofSeconds(10)));
		await().until(() -> this.redis.hasKey("baton:lock:{report}:waiting"));

		CompletableFuture<Void> released = locks.allReleased();
		assertThat(released).isNotDone();
		LockLease lease = waiter.get(5, TimeUnit.SECONDS).orElseThrow();
		assertThat(released).isNotDone();
		lease.release();
		released.get(5, TimeUnit.SECONDS);
	}

	@Test
	void aClosedManagerGrantsNothing() {
		RedisLockManager locks = this.managers.manager();
		locks.close();
		assertThatIllegalStateException().isThrownBy(() -> locks.tryAcquire("order:1", Duration.ZERO))
			.withMessageContaining("closed");
		assertThat(this.redis.hasKey("baton:lock:{order:1}")).isFalse();
	}

	@Test
	void aLossFoundAfterCloseIsReportedWithoutThrowing() {
		RedisLockManager locks = this.managers.manager();
		LockLease lease = locks.tryAcquire("order:7", Duration.ZERO).orElseThrow();
		this.redis.opsForValue().set("baton:lock:{order:7}", "another-instance", Duration.ofSeconds(30));
		locks.close();

		assertThatNoException().isThrownBy(lease::release);
		await().untilAsserted(() -> assertThat(this.managers.lostEvents).extracting(LockLostEvent::name)
			.containsExactly("order:7"));
		assertThat(this.redis.opsForValue().get("baton:lock:{order:7}")).isEqualTo("another-instance");
	}

}
