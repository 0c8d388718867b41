package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLock;
import dev.baton.support.ProxiedRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Locks under network faults, through a TCP proxy between the holder and Redis: a partition, a
 * slow link, and Redis killed and restarted. A second instance connects to Redis directly.
 */
class RedisLockNetworkFaultTests {

	private static final Duration LEASE = Duration.ofMillis(1500);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private ProxiedRedis servers;

	private StringRedisTemplate redis;

	@BeforeEach
	void start() {
		this.servers = ProxiedRedis.start();
		this.redis = new StringRedisTemplate(this.servers.direct());
	}

	@AfterEach
	void stop() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.servers.close();
	}

	@Test
	void aReleaseThatCannotReachRedisAfterTheLeaseRanOutReportsTheLoss() {
		RedisLockManager holder = holder();
		LockLease lease = holder.tryAcquire("ledger:4", Duration.ZERO).orElseThrow();
		this.servers.proxy().blackHole();
		// The lease runs out on the holder's clock; the code that held it ends and releases at once,
		// possibly before the watchdog's next round notices.
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> !lease.isValid());
		try {
			lease.release();
		}
		catch (LockUnavailableException ex) {
			// Redis did not answer: the release is retried in the background.
		}

		// Another instance may hold the lock by now: the holder must be told, whoever notices first.
		await().atMost(Duration.ofSeconds(3)).until(() -> this.lostEvents.stream()
			.anyMatch((event) -> event.name().equals("ledger:4")));
	}

	/** The holder: through the proxy, with Lettuce's default 60 s command timeout. */
	private RedisLockManager holder() {
		RedisLockManager manager = RedisLockManager.builder(this.servers.throughProxy())
			.leaseTime(LEASE)
			.commandTimeout(Duration.ofMillis(300))
			.lockLostListener(this.lostEvents::add)
			.meterRegistry(this.meters)
			.build();
		this.resources.add(manager);
		return manager;
	}

	/**
	 * A holder through the proxy whose lease outlasts the test's waits, so that only a release can
	 * free its locks in time.
	 */
	private RedisLockManager holderWithALongLease() {
		RedisLockManager manager = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(Duration.ofMillis(300))
			.build();
		this.resources.add(manager);
		return manager;
	}

	/** Another instance, straight to Redis. */
	private RedisLockManager otherInstance() {
		RedisLockManager manager = RedisLockManager.builder(this.servers.direct()).build();
		this.resources.add(manager);
		return manager;
	}

	@Test
	void releaseWhoseReplyNeverCameIsRetriedInsteadOfLeavingTheLockHeldForItsLease() {
		RedisLockManager holder = RedisLockManager.builder(this.servers.throughProxy())
			.leaseTime(Duration.ofSeconds(30))
			.commandTimeout(Duration.ofMillis(300))
			.meterRegistry(this.meters)
			.build();
		this.resources.add(holder);
		LockLease lease = holder.tryAcquire("report", Duration.ZERO).orElseThrow();

		this.servers.proxy().blackHole();
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lease::release);
		this.servers.proxy().heal();

		// Without a retry the key would stay until its 30 s lease ran out
		long start = System.nanoTime();
		assertThat(otherInstance().tryAcquire("report", Duration.ofSeconds(10))).isPresent();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(this.meters.get("baton.lock.release.unconfirmed").tag("lock", "report").counter().count())
			.isOne();
	}

	@Test
	void tokenAskedForWhileRedisIsUnreachableFailsInTimeAndIsIssuedOnceItIsBack() {
		RedisLockManager holder = holderWithALongLease();
		LockLease lease = holder.tryAcquire("ledger", Duration.ZERO).orElseThrow();

		this.servers.proxy().blackHole();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lease::fencingToken)
			.withMessageContaining("Redis did not issue a fencing token for lock 'ledger'");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		this.servers.proxy().heal();

		// Not knowing is not losing: the lease still holds the lock, and asking again issues the token.
		assertThat(lease.isValid()).isTrue();
		long token = await().atMost(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
			.until(lease::fencingToken, (issued) -> issued > 0);
		assertThat(this.redis.opsForValue().get("baton:lock:{ledger}:fence"))
			.isEqualTo(String.valueOf(token + LockCommands.RESERVED_TOKENS - 1));
		assertThat(otherInstance().tryAcquire("ledger", Duration.ZERO)).as("taken while the first holds it").isEmpty();
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{ledger}")).isFalse();
		assertThat(this.redis.getExpire("baton:lock:{ledger}:fence")).isPositive();
		assertThat(otherInstance().tryAcquire("ledger", Duration.ZERO).orElseThrow().fencingToken())
			.isGreaterThan(token + LockCommands.RESERVED_TOKENS - 1);
	}

	@Test
	void holderCutOffFromRedisLearnsThatItLostTheLockWhileStillCutOff() {
		RedisLockManager holder = holder();
		LockLease lease = holder.tryAcquire(LockRequest.of("settlement:1").build()).orElseThrow();
		RedisLock lock = holder.getLock("report");
		lock.lock();
		RedisLockManager other = otherInstance();

		this.servers.proxy().blackHole();
		long cut = System.nanoTime();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lostEvents.size() == 2);
		Duration noticed = Duration.ofNanos(System.nanoTime() - cut);

		// At most one renewal period (LEASE / 3) after the lease ran out, counted from the last renewal sent.
		assertThat(noticed).isLessThan(LEASE.plus(LEASE.dividedBy(3)).plusMillis(400));
		assertThat(lease.isValid()).isFalse();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(this.meters.get("baton.lock.lost").tag("lock", "settlement").counter().count()).isOne();
		// Redis expired the lease by then: the other instance gets the lock.
		await().atMost(Duration.ofSeconds(3))
			.until(() -> other.tryAcquire("settlement:1", Duration.ZERO).map((theirs) -> true).orElse(false));

		this.servers.proxy().heal();
		assertThat(holder.heldCount()).isZero();
	}

	@Test
	void theFirstLockCallWhileRedisIsUnreachableEndsWithinItsBound() {
		// No connection is open yet: connecting (TCP succeeds, the handshake never answers) is on the caller's path.
		RedisLockManager holder = holder();
		this.servers.proxy().blackHole();

		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.withLock("first", Duration.ofSeconds(1), () -> {
			}));
		// Wait plus command timeout, and some slack for a loaded machine; the network stays cut for 60 s.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void aValidatingConnectionFactoryStaysWithinTheCommandTimeoutWhenRedisIsUnreachable() {
		LettuceConnectionFactory validating = this.servers.throughProxy();
		validating.setValidateConnection(true);
		RedisLockManager holder = RedisLockManager.builder(validating).commandTimeout(Duration.ofMillis(300)).build();
		this.resources.add(holder);
		holder.ping();
		this.servers.proxy().blackHole();

		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.tryAcquire("validated", Duration.ZERO));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aWaiterWhoseWaitRanOutDoesNotWaitForItsUnsubscribe() throws Exception {
		RedisLockManager waiter = holder();
		otherInstance().tryAcquire("doc:1", Duration.ZERO).orElseThrow();
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture
			.supplyAsync(() -> waiter.tryAcquire("doc:1", Duration.ofSeconds(1)));
		await().until(() -> this.redis.hasKey("baton:lock:{doc:1}:waiting"));
		this.servers.proxy().blackHole();

		long start = System.nanoTime();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isEmpty();
		// The wait's end, and no unsubscribe on the caller's path (Lettuce's own timeout here is 60 s).
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aWaiterThatCannotSubscribeFailsWithinTheCommandTimeout() throws Exception {
		RedisLockManager waiter = holder();
		RedisLockManager other = otherInstance();
		other.tryAcquire("doc:2", Duration.ZERO).orElseThrow();
		other.tryAcquire("doc:3", Duration.ZERO).orElseThrow();
		// The subscription is up: a waiter of a new lock only adds its channel.
		assertThat(waiter.tryAcquire("doc:2", Duration.ofMillis(100))).isEmpty();
		// Commands flow; the subscription's connection does not.
		this.servers.proxy().blackHoleSubscribers();

		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> waiter.tryAcquire("doc:3", Duration.ofSeconds(5)))
			.withMessageContaining("doc:3");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aReleaseThatHandsOffDuringAnOutageAndItsWaiterEndWithinTheirBounds() throws Exception {
		RedisLockManager locks = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		this.resources.add(locks);
		LockLease holder = locks.tryAcquire("ledger:9", Duration.ZERO).orElseThrow();
		long waitStart = System.nanoTime();
		CompletableFuture<Optional<LockLease>> waiter = CompletableFuture
			.supplyAsync(() -> locks.tryAcquire("ledger:9", Duration.ofSeconds(1)));
		await().until(() -> this.redis.hasKey("baton:lock:{ledger:9}:waiting"));
		Thread.sleep(Math.max(900 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waitStart), 0));
		this.servers.proxy().blackHole();

		// The hand-off to the waiter cannot reach Redis: one command timeout, no more.
		long releaseStart = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(holder::release);
		assertThat(Duration.ofNanos(System.nanoTime() - releaseStart)).isLessThan(Duration.ofMillis(1700));
		// The waiter's wait ran out meanwhile: it must not ask Redis again for another timeout.
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - waitStart)).isLessThan(Duration.ofMillis(2500));
	}

	@Test
	void aKeepWhoseReplyNeverCameIsRetriedSoThatTheLockStaysForItsMinimum() throws Exception {
		RedisLockManager holder = RedisLockManager.builder(this.servers.throughProxy())
			.leaseTime(LEASE)
			.commandTimeout(Duration.ofMillis(300))
			.meterRegistry(this.meters)
			.build();
		this.resources.add(holder);
		LockLease lease = holder.tryAcquire("nightly", Duration.ZERO).orElseThrow();

		// A @Scheduled job's lockAtLeastFor, longer than the lease.
		this.servers.proxy().blackHole();
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> lease.release(Duration.ofSeconds(20)));
		this.servers.proxy().heal();

		// Unretried, the lock would expire with its 1.5 s lease and the job could run again elsewhere.
		Thread.sleep(LEASE.multipliedBy(2).toMillis());
		assertThat(otherInstance().tryAcquire("nightly", Duration.ZERO)).isEmpty();
		assertThat(this.redis.getExpire("baton:lock:{nightly}", TimeUnit.SECONDS)).isBetween(10L, 20L);
		assertThat(this.meters.get("baton.lock.release.unconfirmed").tag("lock", "nightly").counter().count())
			.isOne();
	}

	@Test
	void anInterruptedHolderReleasesThroughAValidatingConnectionFactory() {
		LettuceConnectionFactory validating = this.servers.direct();
		validating.setValidateConnection(true);
		RedisLockManager locks = RedisLockManager.builder(validating).build();
		this.resources.add(locks);
		LockLease lease = locks.tryAcquire("refund:1", Duration.ZERO).orElseThrow();

		Thread.currentThread().interrupt();
		try {
			lease.release();
			assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.redis.hasKey("baton:lock:{refund:1}")).isFalse();
	}

	@Test
	void renewalFailureIsForgottenOnceNoLeaseIsLeftToRenew() {
		RedisLockManager holder = holder();
		holder.tryAcquire("settlement:2", Duration.ZERO).orElseThrow();

		this.servers.proxy().blackHole();
		await().atMost(Duration.ofSeconds(10)).until(() -> holder.lastRenewalFailure() != null);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lostEvents.size() == 1);
		this.servers.proxy().heal();

		// Nothing is held: a failure of the past says nothing about the present (the health reads it).
		await().atMost(Duration.ofSeconds(3)).until(() -> holder.lastRenewalFailure() == null);
	}

	@Test
	void lockCallsOnAnUnreachableRedisFailWithinTheCommandTimeout() {
		RedisLockManager holder = holder();
		LockLease lease = holder.tryAcquire("job", Duration.ZERO).orElseThrow();

		this.servers.proxy().blackHole();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.tryAcquire("other-job", Duration.ZERO))
			.withMessageContaining("acquire lock 'other-job'");
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.tryAcquire("job", Duration.ofMillis(200)));
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lease::release);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		this.servers.proxy().heal();
	}

	@Test
	void acquireWhoseReplyCameTooLateDoesNotLeaveTheLockHeld() {
		RedisLockManager holder = holderWithALongLease();
		holder.tryAcquire("warm-up", Duration.ZERO).orElseThrow().release();

		this.servers.proxy().latency(Duration.ofMillis(400));
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.tryAcquire("slow", Duration.ZERO));
		this.servers.proxy().heal();

		// Redis did take the lock for the late acquire; the owner-checked release that followed frees it.
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{slow}"));
		assertThat(otherInstance().tryAcquire("slow", Duration.ZERO)).isPresent();
	}

	@Test
	void acquireWhoseReplyCameTooLateIsUndoneAlsoWhenRedisHasNotSeenTheReleaseScript() {
		// Redis has the acquire script but not the release script, as after a restart or SCRIPT FLUSH.
		this.redis.execute((RedisCallback<String>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		otherInstance().tryAcquire("warm-up", Duration.ZERO).orElseThrow();
		RedisLockManager holder = holderWithALongLease();

		this.servers.proxy().latency(Duration.ofMillis(400));
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> holder.tryAcquire("slow", Duration.ZERO));
		this.servers.proxy().heal();

		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{slow}"));
	}

	@Test
	void redisRestartWhileLocksAreHeldAndAwaited() throws Exception {
		RedisLockManager holder = holder();
		LockLease held = holder.tryAcquire("restart", Duration.ZERO).orElseThrow();
		RedisLockManager waiterInstance = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(Duration.ofMillis(300))
			.build();
		this.resources.add(waiterInstance);
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (System.nanoTime() < deadline) {
				try {
					return waiterInstance.tryAcquire("restart", Duration.ofSeconds(10)).map((lease) -> {
						lease.release();
						return true;
					}).orElse(false);
				}
				catch (LockUnavailableException ex) {
					// Redis is down: try again, as a caller would
				}
			}
			return false;
		});
		Thread.sleep(200);

		this.servers.server().kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> !held.isValid());
		this.servers.server().restart();

		assertThat(waiter.get(30, TimeUnit.SECONDS)).as("the waiter got the lock after the restart").isTrue();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.lostEvents.stream().anyMatch((event) -> event.name().equals("restart")));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.redis.keys("baton:lock:*").stream().allMatch((key) -> key.endsWith(":fence")));
		assertThat(holder.heldCount()).isZero();
	}

	@Test
	void contentionThroughARedisRestartThatLostTheLockLeavesNothingHeldOrRenewed() throws Exception {
		RedisLockManager first = holder();
		RedisLockManager second = holder();
		AtomicBoolean running = new AtomicBoolean(true);
		Set<Long> tokensBefore = ConcurrentHashMap.newKeySet();
		AtomicBoolean restarted = new AtomicBoolean();
		Set<Long> tokensAfter = ConcurrentHashMap.newKeySet();
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			RedisLockManager locks = (i % 2 == 0) ? first : second;
			workers.add(CompletableFuture.runAsync(() -> {
				while (running.get()) {
					try {
						locks.tryAcquire("hot", Duration.ofSeconds(1)).ifPresent((lease) -> {
							(restarted.get() ? tokensAfter : tokensBefore).add(lease.fencingToken());
							lease.release();
						});
					}
					catch (LockUnavailableException ex) {
						// Redis is down: try again, as a caller would
					}
				}
			}));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> tokensBefore.size() > 100);

		// Without persistence the restarted server has lost the lock, its fence and its waiting marker.
		this.servers.server().kill();
		Thread.sleep(500);
		this.servers.server().restart();
		restarted.set(true);
		await().atMost(Duration.ofSeconds(20)).until(() -> tokensAfter.size() > 100);
		running.set(false);
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

		first.allReleased().get(5, TimeUnit.SECONDS);
		second.allReleased().get(5, TimeUnit.SECONDS);
		assertThat(first.heldCount() + second.heldCount()).as("leases still held or renewed").isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{hot}"));
		assertThat(this.redis.keys("baton:lock:*")).as("keys left without an expiry")
			.allSatisfy((key) -> assertThat(this.redis.getExpire(key)).isPositive());
		// The fence was lost with the data; the server clock still puts every later token above the earlier ones.
		assertThat(tokensAfter).allSatisfy((token) -> assertThat(token).isGreaterThan(Collections.max(tokensBefore)));
	}

	@Test
	void waiterInterruptedWhileTheHandOffIsUnderWayGetsTheLockKeepsTheInterruptAndLosesNothing() throws Exception {
		RedisLockManager locks = RedisLockManager.builder(this.servers.throughProxy())
			.commandTimeout(Duration.ofSeconds(2))
			.build();
		this.resources.add(locks);
		RedisLock lock = locks.getLock("doc");
		LockLease held = locks.tryAcquire("doc", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
			waiterThread.set(Thread.currentThread());
			try {
				boolean locked = lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(30));
				boolean interrupted = Thread.interrupted();
				if (locked) {
					lock.unlock();
				}
				return "locked=" + locked + ", interrupted=" + interrupted;
			}
			catch (InterruptedException ex) {
				return "interrupted before the hand-off";
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> waiterThread.get() != null
				&& waiterThread.get().getState() == Thread.State.TIMED_WAITING);

		// A lease time keeps the hand-off in Redis, where the proxy makes it slow.
		this.servers.proxy().latency(Duration.ofMillis(100));
		CompletableFuture<Void> release = CompletableFuture.runAsync(held::release);
		Thread.sleep(50);
		waiterThread.get().interrupt();
		release.get(10, TimeUnit.SECONDS);
		this.servers.proxy().heal();

		assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("locked=true, interrupted=true");
		assertThat(locks.heldCount()).isZero();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void interruptedCallerThatMayWaitStillWaitsAndKeepsItsInterrupt() throws Exception {
		RedisLockManager locks = holder();
		LockLease held = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
			Thread.currentThread().interrupt();
			Optional<LockLease> lease = locks.tryAcquire("doc", Duration.ofSeconds(20));
			boolean interrupted = Thread.interrupted();
			lease.ifPresent(LockLease::release);
			return "acquired=" + lease.isPresent() + ", interrupted=" + interrupted;
		});
		Thread.sleep(500);

		held.release();

		assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("acquired=true, interrupted=true");
		assertThat(locks.heldCount()).isZero();
	}

}
