package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLock;
import dev.baton.support.ProxiedRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Lock commands whose reply is lost to a connection reset after Redis ran them: Lettuce sends
 * them again on the new connection, so each runs twice. Every outcome must be that of running once.
 */
class RedisLockReplayTests {

	private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private ProxiedRedis servers;

	private StringRedisTemplate redis;

	private RedisLockManager manager;

	@BeforeEach
	void start() {
		this.servers = ProxiedRedis.start();
		this.redis = new StringRedisTemplate(this.servers.direct());
		this.manager = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(Duration.ofSeconds(2))
			.lockLostListener(this.lostEvents::add)
			.meterRegistry(this.meters)
			.build();
		// Open the connection, so that the next request is the lock command under test.
		this.manager.ping();
	}

	@AfterEach
	void stop() {
		this.manager.close();
		this.servers.close();
	}

	@Test
	void anAcquisitionRunTwiceHoldsTheLock() throws Exception {
		this.servers.proxy().dropNextReplyAndReset();
		Optional<LockLease> lease = this.manager.tryAcquire("order:1", Duration.ZERO);
		assertThat(lease).as("acquired by the first run, refused by the replay").isPresent();
		lease.get().release();
		assertThat(this.redis.hasKey("baton:lock:{order:1}")).isFalse();
		assertNoLoss();
	}

	@Test
	void aWaitingAcquisitionRunTwiceIsNotLeftHoldingTheLockWhenAnotherWaiterIsFirstInLine() throws Exception {
		for (int round = 0; round < 8; round++) {
			String name = "order:8:" + round;
			this.servers.proxy().dropNextReplyAndReset();
			// The first SET through the proxy takes the lock, runs again after the reset and is refused;
			// the other caller is refused by it, and either may be first in line: the replayed caller may
			// never ask Redis again before its wait runs out.
			CompletableFuture<Optional<LockLease>> one = CompletableFuture
				.supplyAsync(() -> this.manager.tryAcquire(name, Duration.ofMillis(300)));
			CompletableFuture<Optional<LockLease>> other = CompletableFuture
				.supplyAsync(() -> this.manager.tryAcquire(name, Duration.ofMillis(300)));
			List<LockLease> granted = new ArrayList<>();
			one.get(5, TimeUnit.SECONDS).ifPresent(granted::add);
			other.get(5, TimeUnit.SECONDS).ifPresent(granted::add);
			assertThat(granted).as("round %d: granted to one caller", round).hasSize(1);
			granted.get(0).release();
			assertThat(this.redis.opsForValue().get("baton:lock:{" + name + "}"))
				.as("round %d: nobody holds the lock for an owner that no caller was given", round)
				.isNull();
		}
		assertNoLoss();
	}

	@Test
	void aWaitingAcquisitionRunTwiceAndInterruptedLeavesTheLockFree() throws Exception {
		for (int round = 0; round < 8; round++) {
			String name = "order:9:" + round;
			this.servers.proxy().dropNextReplyAndReset();
			List<AtomicReference<Thread>> callers = List.of(new AtomicReference<>(), new AtomicReference<>());
			List<CompletableFuture<String>> outcomes = callers.stream()
				.map((caller) -> CompletableFuture.supplyAsync(() -> lockAndUnlock(name, caller)))
				.toList();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> IntStream.range(0, 2)
					.allMatch((i) -> outcomes.get(i).isDone() || InLine.isInLine(callers.get(i).get())));
			for (int i = 0; i < 2; i++) {
				if (!outcomes.get(i).isDone()) {
					callers.get(i).get().interrupt();
				}
			}
			for (CompletableFuture<String> outcome : outcomes) {
				assertThat(outcome.get(5, TimeUnit.SECONDS)).isIn("locked", "interrupted");
			}
			String key = "baton:lock:{" + name + "}";
			await().atMost(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThat(this.redis.hasKey(key))
					.as("%s: not held for an interrupted caller", name)
					.isFalse());
		}
		assertNoLoss();
	}

	@Test
	void aWaitingAcquisitionRunTwiceThatCannotSubscribeLeavesTheLockFree() throws Exception {
		try (RedisLockManager other = RedisLockManager.builder(this.servers.direct()).build()) {
			other.tryAcquire("order:10:held", Duration.ZERO).orElseThrow();
			// The subscription is up: a waiter of another lock only adds its channel.
			assertThat(this.manager.tryAcquire("order:10:held", Duration.ofMillis(100))).isEmpty();
		}
		this.servers.proxy().blackHoleSubscribers();
		this.servers.proxy().dropNextReplyAndReset();
		// The first SET takes the lock, runs again after the reset and is refused; the caller cannot
		// get in line, as its channel's subscription gets no answer.
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.manager.tryAcquire("order:10", Duration.ofSeconds(5)))
			.withMessageContaining("order:10");
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.redis.hasKey("baton:lock:{order:10}"))
				.as("not held for a caller that was told it failed")
				.isFalse());
	}

	private String lockAndUnlock(String name, AtomicReference<Thread> caller) {
		caller.set(Thread.currentThread());
		RedisLock lock = this.manager.getLock(name);
		try {
			if (!lock.tryLock(Duration.ofSeconds(10), null)) {
				return "timed out";
			}
		}
		catch (InterruptedException ex) {
			return "interrupted";
		}
		lock.unlock();
		return "locked";
	}

	@Test
	void aReleaseRunTwiceIsNotALoss() throws Exception {
		this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow().release();
		LockLease lease = this.manager.tryAcquire("order:2", Duration.ZERO).orElseThrow();
		this.servers.proxy().dropNextReplyAndReset();
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{order:2}")).isFalse();
		assertNoLoss();
	}

	@Test
	void aKeepRunTwiceIsNotALoss() throws Exception {
		this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow().release(Duration.ofMillis(1));
		LockLease lease = this.manager.tryAcquire("order:3", Duration.ZERO).orElseThrow();
		this.servers.proxy().dropNextReplyAndReset();
		lease.release(Duration.ofSeconds(20));
		assertThat(this.redis.getExpire("baton:lock:{order:3}", TimeUnit.SECONDS)).isBetween(15L, 20L);
		assertNoLoss();
	}

	@Test
	void aHandOffRunTwiceGivesTheWaiterTheLock() throws Exception {
		handOff("warm-up", () -> {
		});
		handOff("order:4", () -> this.servers.proxy().dropNextReplyAndReset());
		assertNoLoss();
	}

	private void handOff(String name, Runnable beforeRelease) throws Exception {
		LockLease holder = this.manager.tryAcquire(name, Duration.ZERO).orElseThrow();
		CompletableFuture<Optional<LockLease>> waiter = CompletableFuture
			.supplyAsync(() -> this.manager.tryAcquire(name, Duration.ofSeconds(10)));
		await().until(() -> this.redis.hasKey("baton:lock:{" + name + "}:waiting"));
		beforeRelease.run();
		holder.release();
		LockLease handedOver = waiter.get(5, TimeUnit.SECONDS).orElseThrow();
		assertThat(handedOver.isValid()).isTrue();
		handedOver.release();
		assertThat(this.redis.hasKey("baton:lock:{" + name + "}")).isFalse();
	}

	@Test
	void aTokenRequestRunTwiceStillGivesTheHolderAToken() throws Exception {
		LockLease warmUp = this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow();
		warmUp.fencingToken();
		warmUp.release();
		LockLease lease = this.manager.tryAcquire("order:6", Duration.ZERO).orElseThrow();
		this.servers.proxy().dropNextReplyAndReset();

		// The replay issues a second, larger token to the same holder: tokens still grow in holding order.
		long token = lease.fencingToken();
		assertThat(token).isPositive();
		assertThat(lease.isValid()).isTrue();
		assertThat(Long.parseLong(this.redis.opsForValue().get("baton:lock:{order:6}:fence")))
			.isGreaterThanOrEqualTo(token);
		lease.release();
		assertNoLoss();
	}

	@Test
	void aRenewalRunTwiceKeepsTheLease() throws Exception {
		try (RedisLockManager renewing = RedisLockManager.builder(this.servers.throughProxy())
			.leaseTime(Duration.ofMillis(900))
			.commandTimeout(Duration.ofMillis(250))
			.lockLostListener(this.lostEvents::add)
			.build()) {
			LockLease lease = renewing.tryAcquire("order:7", Duration.ZERO).orElseThrow();
			// The next request on the connection is the watchdog's renewal, a third of the lease later.
			this.servers.proxy().dropNextReplyAndReset();
			Thread.sleep(2000);
			assertThat(lease.isValid()).isTrue();
			assertThat(this.redis.getExpire("baton:lock:{order:7}", TimeUnit.MILLISECONDS)).isPositive();
			lease.release();
		}
		assertNoLoss();
	}

	@Test
	void theWaitersAcquireScriptRunTwiceGrantsTheLockBothTimes() {
		// A waiter's attempts go out while another thread waits for a release, which the proxy cannot
		// single out: run the script twice as Lettuce would.
		LockCommands commands = new LockCommands(BatonThreads.PLATFORM, this.servers.direct(), Duration.ofSeconds(2), 0, Duration.ofMillis(1),
				LockMetrics.NONE);
		LockKeys keys = LockKeys.of("baton:lock:", "order:5");
		long first = commands.acquire(keys, "instance:1", 30_000, 60_000, 60_000);
		this.redis.expire(keys.lock(), Duration.ofSeconds(5));
		long second = commands.acquire(keys, "instance:1", 30_000, 60_000, 60_000);
		assertThat(first).isPositive();
		assertThat(second).as("granted again, with a larger token").isGreaterThan(first);
		assertThat(this.redis.getExpire(keys.lock(), TimeUnit.SECONDS)).as("lease set anew").isGreaterThan(25);
		assertThat(commands.acquire(keys, "instance:2", 30_000, 60_000, 0)).as("still refused to others").isNotPositive();
	}

	@Test
	void aHandOverRunTwiceHandsTheLockOver() throws Exception {
		this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow().handOver();
		LockLease lease = this.manager.tryAcquire("order:5", Duration.ZERO).orElseThrow();
		lease.fencingToken();
		this.servers.proxy().dropNextReplyAndReset();

		LeaseToken token = lease.handOver();

		assertThat(this.redis.opsForValue().get("baton:lock:{order:5}")).isEqualTo(token.owner());
		assertNoLoss();
	}

	@Test
	void aRestoreRunTwiceRestoresTheLock() throws Exception {
		LeaseToken warmUp = this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow().handOver();
		this.manager.restore(warmUp).release();
		LeaseToken token = this.manager.tryAcquire("order:6", Duration.ZERO).orElseThrow().handOver();
		this.servers.proxy().dropNextReplyAndReset();

		LockLease restored = this.manager.restore(token);

		assertThat(restored.isValid()).as("restored by the first run, not lost to the replay").isTrue();
		restored.release();
		assertThat(this.redis.hasKey("baton:lock:{order:6}")).as("released, not left to its lease").isFalse();
		assertNoLoss();
	}

	@Test
	void aTakeBackRunTwiceGivesTheLeaseItsLockBack() throws Exception {
		LockLease warmUp = this.manager.tryAcquire("warm-up", Duration.ZERO).orElseThrow();
		this.manager.takeBack(warmUp, warmUp.handOver());
		warmUp.release();
		LockLease lease = this.manager.tryAcquire("order:7", Duration.ZERO).orElseThrow();
		LeaseToken token = lease.handOver();
		this.servers.proxy().dropNextReplyAndReset();

		assertThat(this.manager.takeBack(lease, token)).isTrue();

		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{order:7}")).isFalse();
		assertNoLoss();
	}

	private void assertNoLoss() throws InterruptedException {
		// Lock-lost listeners run on a thread of their own.
		Thread.sleep(200);
		assertThat(this.lostEvents).isEmpty();
		assertThat(this.meters.find("baton.lock.lost").counters()).allSatisfy((counter) -> assertThat(counter.count()).isZero());
	}

}
