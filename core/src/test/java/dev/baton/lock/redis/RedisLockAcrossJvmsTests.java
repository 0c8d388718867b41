package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.support.ChildJvm;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locks held by another JVM: exclusion, release, fencing order, the holder killed, and a lock
 * handed over by a JVM that exited.
 */
@RedisTest
class RedisLockAcrossJvmsTests {

	@Test
	void excludesAnotherJvmUntilItReleasesAndFencesAfterIt(RedisServer server, RedisConnectionFactory connectionFactory)
			throws Exception {
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build();
				ChildJvm holder = ChildJvm.start(LockHolderProcess.class, server.url(), "shared", "30000", "0")) {
			long childToken = Long.parseLong(holder.awaitLine("token="));

			assertThat(locks.tryAcquire("shared", Duration.ofMillis(200))).isEmpty();
			holder.send("release");
			assertThat(holder.awaitLine("released")).isEmpty();

			LockLease lease = locks.tryAcquire("shared", Duration.ofSeconds(5)).orElseThrow();
			assertThat(lease.fencingToken()).isGreaterThan(childToken);
			lease.release();
		}
	}

	@Test
	void aLockHandedOverByAJvmThatExitedIsRestoredAndReleasedHere(RedisServer server,
			RedisConnectionFactory connectionFactory) throws Exception {
		String token;
		long fencingToken;
		try (ChildJvm web = ChildJvm.start(LeaseHandOverProcess.class, server.url(), "order:42", "60000")) {
			fencingToken = Long.parseLong(web.awaitLine("fencing="));
			token = web.awaitLine("token=");
		}
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).instanceName("job").build()) {
			// The web JVM is gone; its lease of 30 s would not have lasted, the extension does.
			assertThat(locks.tryAcquire("order:42", Duration.ZERO)).isEmpty();
			assertThat(locks.holderOf("order:42")).contains("web");

			LockLease lease = locks.restore(LeaseToken.parse(token));

			assertThat(lease.isValid()).isTrue();
			assertThat(lease.fencingToken()).isEqualTo(fencingToken);
			assertThat(locks.holderOf("order:42")).contains("job");
			assertThat(locks.restore(LeaseToken.parse(token)).isValid()).as("a token restores once").isFalse();
			lease.release();
			assertThat(locks.tryAcquire("order:42", Duration.ZERO)).isPresent();
		}
	}

	@Test
	void waiterInAnotherJvmIsWokenByTheRelease(RedisServer server, RedisConnectionFactory connectionFactory)
			throws Exception {
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
			LockLease held = locks.tryAcquire("handoff", Duration.ZERO).orElseThrow();
			long heldToken = held.fencingToken();
			try (ChildJvm waiter = ChildJvm.start(LockHolderProcess.class, server.url(), "handoff", "30000", "60000")) {
				waitUntilWaiting(connectionFactory);
				long released = System.nanoTime();
				held.release();
				long childToken = Long.parseLong(waiter.awaitLine("token="));

				// The lease had 30 s left; the child's wait is ended by the published release.
				assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(10));
				assertThat(childToken).isGreaterThan(heldToken);
			}
		}
	}

	@Test
	void threadsOfTwoJvmsContendingForOneLockNeverOverlapAndSeeTokensGrow(RedisServer server,
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) throws Exception {
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build();
				ChildJvm other = ChildJvm.start(ContendingLockProcess.class, server.url(), "hot", "4", "3000")) {
			int pairsHere = ContendingLockProcess.contend(locks, redis, "hot", 4, Duration.ofSeconds(3));
			int pairsThere = Integer.parseInt(other.awaitLine("pairs="));

			assertThat(redis.opsForValue().get(ContendingLockProcess.OVERLAPS)).as("overlaps").isNull();
			assertThat(redis.opsForValue().get(ContendingLockProcess.TOKENS_NOT_INCREASING)).as("tokens not increasing")
				.isNull();
			assertThat(pairsHere).as("pairs in this JVM").isPositive();
			assertThat(pairsThere).as("pairs in the other JVM").isPositive();
			assertThat(redis.hasKey("baton:lock:{hot}")).isFalse();
		}
	}

	@Test
	void lockOfAKilledHolderFreesItselfWithinTheLease(RedisServer server, RedisConnectionFactory connectionFactory)
			throws Exception {
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build();
				ChildJvm holder = ChildJvm.start(LockHolderProcess.class, server.url(), "crash", "1500", "0")) {
			holder.awaitLine("token=");
			assertThat(locks.tryAcquire("crash", Duration.ZERO)).isEmpty();

			holder.kill();

			long killed = System.nanoTime();
			LockLease lease = locks.tryAcquire("crash", Duration.ofSeconds(10)).orElseThrow();
			assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(Duration.ofSeconds(10));
			lease.release();
		}
	}

	private static void waitUntilWaiting(RedisConnectionFactory connectionFactory) throws InterruptedException {
		try (var connection = connectionFactory.getConnection()) {
			byte[] marker = "baton:lock:{handoff}:waiting".getBytes();
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (!Boolean.TRUE.equals(connection.keyCommands().exists(marker))) {
				assertThat(System.nanoTime()).as("child JVM started waiting").isLessThan(deadline);
				Thread.sleep(50);
			}
			// Give the child's subscription a moment; a missed publish would only delay it to the lease end.
			Thread.sleep(300);
		}
	}

}
