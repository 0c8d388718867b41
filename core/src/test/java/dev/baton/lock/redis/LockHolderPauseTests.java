package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.baton.lock.LockLease;
import dev.baton.support.ChildJvm;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock holder whose JVM is frozen past its lease (SIGSTOP), as a long GC pause or a suspended VM
 * would freeze it: what docs/guarantees.md and docs/locks.md "Fencing tokens" promise of it.
 */
@RedisTest
class LockHolderPauseTests {

	private static final String LOCK = "paused";

	private static final String LOCK_KEY = "baton:lock:{paused}";

	private static final String REGISTER = "test:register:{paused}";

	/** The child's watchdog lease, renewed every third of it. */
	private static final Duration LEASE = Duration.ofMillis(1500);

	/** How long the holder stays frozen: long past the lease it last renewed. */
	private static final Duration PAUSE = LEASE.multipliedBy(3);

	/**
	 * A renewal the child wrote just before it froze reaches Redis on the loopback well within
	 * this; after it, nothing of the child's can change the lease.
	 */
	private static final Duration IN_FLIGHT = Duration.ofMillis(100);

	/**
	 * How long after the lease ran out this JVM's waiter may take to get the lock: it tries again
	 * when the lease it was told of has passed; this is scheduling slack for 2 shared cores.
	 */
	private static final Duration ACQUIRE_SLACK = Duration.ofSeconds(1);

	/** PTTL counts in milliseconds and a script's clock is read at its start: the lease end is this exact. */
	private static final long REDIS_CLOCK_GRAIN_MICROS = 2_000;

	/**
	 * How soon the resumed holder must know: its watchdog's overdue run comes at once, at worst a
	 * period later; it finds the lease run out and, before the report, sends a quiet release
	 * bounded by the command timeout; a second of slack.
	 */
	private static final Duration LOSS_BOUND = LockWatchdog.period(LEASE)
		.plus(RedisLockManager.Builder.DEFAULT_COMMAND_TIMEOUT)
		.plusSeconds(1);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> TIME_AND_TTL = RedisScript.of("""
			local now = redis.call('TIME')
			return {tonumber(now[1]) * 1000000 + tonumber(now[2]), redis.call('PTTL', KEYS[1])}
			""", List.class);

	/**
	 * The holder's JVM takes the lock, writes to the fenced register with its token, and is frozen
	 * for three leases. This JVM gets the lock once the lease the holder last renewed ran out on
	 * Redis's clock, not before, with a greater token, and writes. The holder, let run again, finds
	 * its lease invalid, is told of the loss by its manager, and its late write is refused by the
	 * fence; its release takes nothing from the new holder, and nothing is left in Redis without
	 * an expiry.
	 */
	@Test
	void aHolderFrozenPastItsLeaseLosesTheLockLearnsSoAndIsFencedOff(RedisServer server,
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) throws Exception {
		FencedRegister register = new FencedRegister(redis, REGISTER);
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).instanceName("here").build();
				ChildJvm holder = ChildJvm.start(FencedHolderProcess.class, server.url(), LOCK,
						Long.toString(LEASE.toMillis()), REGISTER)) {
			long childToken = Long.parseLong(holder.awaitLine("token="));
			holder.send("write before the pause");
			assertThat(holder.awaitLine("valid=")).isEqualTo("true written=true");

			holder.pause();
			Thread.sleep(IN_FLIGHT.toMillis());
			long leaseEnd = leaseEndOnRedisClock(redis);

			LockLease lease = locks.tryAcquire(LOCK, PAUSE).orElseThrow();
			// A waiter's token is the Redis clock when the lock was granted, in microseconds (the
			// holder's reserved tokens are far below it): granted once the lease ran out, soon after.
			assertThat(lease.fencingToken()).isGreaterThan(childToken)
				.isBetween(leaseEnd - REDIS_CLOCK_GRAIN_MICROS, leaseEnd + ACQUIRE_SLACK.toNanos() / 1000);
			assertThat(register.write(lease.fencingToken(), "here")).isTrue();

			// Sent while frozen, so the first thing the holder does when it runs again.
			holder.send("write after the pause");
			holder.resumeAfter(PAUSE);
			long resumed = System.nanoTime();

			assertThat(holder.awaitLine("valid=", LOSS_BOUND)).isEqualTo("false written=false");
			holder.send("lost " + LOSS_BOUND.toMillis());
			assertThat(holder.awaitLine("lost=", LOSS_BOUND)).isEqualTo(Long.toString(childToken));
			assertThat(Duration.ofNanos(System.nanoTime() - resumed)).isLessThan(LOSS_BOUND);
			assertThat(register.value()).isEqualTo("here");

			holder.send("release");
			holder.awaitLine("released", LOSS_BOUND);
			assertThat(lease.isValid()).isTrue();
			assertThat(locks.holderOf(LOCK)).contains("here");
			lease.release();
			assertThat(redis.hasKey(LOCK_KEY)).isFalse();
			assertThat(keysWithoutExpiry(redis)).containsExactly(REGISTER);
		}
	}

	/**
	 * When the lock's key expires on the Redis clock, in microseconds: Redis's TIME plus the key's
	 * PTTL, read in one script. The lock must be held with at most a lease left.
	 */
	private static long leaseEndOnRedisClock(StringRedisTemplate redis) {
		List<?> timeAndTtl = redis.execute(TIME_AND_TTL, List.of(LOCK_KEY));
		long ttlMillis = (Long) timeAndTtl.get(1);
		assertThat(ttlMillis).as("lease left when the holder froze, ms")
			.isPositive()
			.isLessThanOrEqualTo(LEASE.toMillis());
		return (Long) timeAndTtl.get(0) + ttlMillis * 1000;
	}

	private static Set<String> keysWithoutExpiry(StringRedisTemplate redis) {
		return redis.keys("*").stream().filter((key) -> redis.getExpire(key) == -1).collect(Collectors.toSet());
	}

}
