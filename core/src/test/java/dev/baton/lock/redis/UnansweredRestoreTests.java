package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A hand-over or restore whose reply does not come in time may still have run: the lock would then
 * be held for an owner id nobody knows until its lease runs out (and a restore's token, its only
 * key, would restore nothing any more). A lock handed over to a queued job often carries a long
 * extension to cover the wait, so it would stay blocked that long.
 */
class UnansweredRestoreTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	private final StringRedisTemplate redis = new StringRedisTemplate(this.servers.direct());

	private final RedisLockManager direct = RedisLockManager.builder(this.servers.direct()).build();

	/** Gives up on a command after 300 ms, before the proxy's 400 ms latency delivers its reply. */
	private final RedisLockManager proxied = RedisLockManager.builder(this.servers.throughProxy())
		.commandTimeout(Duration.ofMillis(300))
		.build();

	@AfterEach
	void stop() {
		this.proxied.close();
		this.direct.close();
		this.servers.close();
	}

	@Test
	void aRestoreThatTimedOutLeavesTheTokenUsable() throws InterruptedException {
		this.proxied.ping();
		LockLease lease = this.direct.tryAcquire("export:7", Duration.ZERO).orElseThrow();
		long fencingToken = lease.fencingToken();
		lease.extend(Duration.ofMinutes(10));
		LeaseToken token = lease.handOver();
		// The restore reaches Redis and runs, but its reply comes after the caller gave up.
		this.servers.proxy().latency(Duration.ofMillis(400));

		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> this.proxied.restore(token));

		// Both requests are delivered 400 ms after they were sent: the restore, then what follows it.
		Thread.sleep(1500);
		assertThat(this.redis.opsForValue().get("baton:lock:{export:7}")).as("given back to the token")
			.isEqualTo(token.owner());
		this.servers.proxy().heal();
		LockLease restored = this.direct.restore(token);
		assertThat(restored.isValid()).as("restored on the retry").isTrue();
		assertThat(restored.fencingToken()).isEqualTo(fencingToken);
		restored.release();
		assertThat(this.redis.hasKey("baton:lock:{export:7}")).isFalse();
	}

	/**
	 * The other side: a hand-over whose reply does not come in time may have given the lock to the
	 * token's owner id, which nobody will ever learn, or left it with the lease, which is no longer
	 * renewed or released. Either way the lock must not stay blocked for its extension.
	 */
	@Test
	void aHandOverThatTimedOutLeavesTheLockFree() throws InterruptedException {
		// Redis knows the scripts afterwards: the calls below go by digest.
		this.proxied.restore(this.proxied.tryAcquire("warm-up", Duration.ZERO).orElseThrow().handOver()).release();
		LockLease lease = this.proxied.tryAcquire("export:8", Duration.ZERO).orElseThrow();
		lease.fencingToken();
		lease.extend(Duration.ofMinutes(10));
		// The hand-over reaches Redis and runs, but its reply comes after the caller gave up.
		this.servers.proxy().latency(Duration.ofMillis(400));

		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lease::handOver);

		assertThat(lease.isValid()).isFalse();
		// Both requests are delivered 400 ms after they were sent: the hand-over, then what follows it.
		Thread.sleep(1500);
		assertThat(this.redis.opsForValue().get("baton:lock:{export:8}")).as("released, not held for its 10 minutes")
			.isNull();
		this.servers.proxy().heal();
		assertThat(this.direct.tryAcquire("export:8", Duration.ZERO)).as("free for the next caller").isPresent();
	}

}
