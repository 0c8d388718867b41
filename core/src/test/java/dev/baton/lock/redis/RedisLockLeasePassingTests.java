package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockRequest;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** When a lease may pass to a waiter of its JVM without a Redis call: {@link RedisLockLease#passTo}. */
@RedisTest
class RedisLockLeasePassingTests {

	private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(30);

	private static final LockKeys KEYS = LockKeys.of("baton:lock:", "passing");

	private static final LockRequest RENEWED = LockRequest.of("passing").build();

	private TestLockManagers managers;

	private RedisLockManager manager;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory) {
		this.managers = new TestLockManagers(connectionFactory);
		this.manager = this.managers.manager();
	}

	@AfterEach
	void close() {
		this.managers.close();
	}

	@Test
	void releasedRenewedLeasePassesWithTheNextTokenTheSameOwnerAndTheSameExpiry() {
		RedisLockLease holder = released(lease(RENEWED, TimeUnit.SECONDS.toNanos(10)));
		Duration holderValidFor = holder.describe().validFor();

		RedisLockLease next = holder.passTo(RENEWED);

		assertThat(next).isNotNull();
		assertThat(next.fencingToken()).isEqualTo(holder.fencingToken() + 1);
		assertThat(next.owner()).isEqualTo(holder.owner());
		assertThat(next.isValid()).isTrue();
		// The holder's expiry, 20 s away, not a fresh lease of 30 s.
		assertThat(next.describe().validFor()).isLessThanOrEqualTo(holderValidFor);
	}

	@Test
	void leaseStillHeldDoesNotPass() {
		assertThat(lease(RENEWED, 0).passTo(RENEWED)).isNull();
	}

	@Test
	void leaseWithLessThanHalfALeaseLeftDoesNotPass() {
		RedisLockLease holder = released(lease(RENEWED, LEASE_NANOS / 2 + TimeUnit.MILLISECONDS.toNanos(100)));

		assertThat(holder.passTo(RENEWED)).isNull();
	}

	@Test
	void leaseTimeOnEitherSideKeepsTheHandOffInRedis() {
		LockRequest withLeaseTime = LockRequest.of("passing").leaseTime(Duration.ofSeconds(30)).build();

		assertThat(released(lease(withLeaseTime, 0)).passTo(RENEWED)).isNull();
		assertThat(released(lease(RENEWED, 0)).passTo(withLeaseTime)).isNull();
	}

	@Test
	void passesStopWhenTheTokensReservedInRedisAreUsedUp() {
		RedisLockLease lease = released(lease(RENEWED, 0));
		int passes = 0;
		RedisLockLease next;
		while ((next = lease.passTo(RENEWED)) != null) {
			passes++;
			lease = released(next);
		}

		assertThat(passes).isEqualTo(LockCommands.RESERVED_TOKENS - 1);
		assertThat(lease.fencingToken()).isEqualTo(1000 + LockCommands.RESERVED_TOKENS - 1);
	}

	/** A lease granted with token 1000, its acquiring command sent {@code agoNanos} ago. */
	private RedisLockLease lease(LockRequest request, long agoNanos) {
		return new RedisLockLease(this.manager, request, KEYS, "instance:1", 1000, LockCommands.RESERVED_TOKENS,
				System.nanoTime() - agoNanos, LEASE_NANOS);
	}

	/** Releases a lease; Redis, which never granted it, answers that it was not held. */
	private static RedisLockLease released(RedisLockLease lease) {
		lease.release();
		return lease;
	}

}
