package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockLease;
import dev.baton.lock.RedisLock;
import dev.baton.support.CommandStats;
import dev.baton.test.RedisTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A holder hands its lock straight to a waiter of the same instance, and that never costs safety or fairness. */
@RedisTest
class RedisLockHandOffTests {

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	private RedisConnectionFactory connectionFactory;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
		this.managers = new TestLockManagers(connectionFactory);
	}

	@AfterEach
	void close() {
		this.threads.shutdownNow();
		this.managers.close();
	}

	private RedisLockManager manager() {
		return this.managers.manager();
	}

	@Test
	void yieldingReleaseLearnsFromRedisWhetherAnotherInstanceWaitsNotFromWhoReceivesItsMessage() {
		LockCommands commands = new LockCommands(BatonThreads.PLATFORM, this.connectionFactory, Duration.ofSeconds(2), 0, Duration.ofSeconds(1),
				LockMetrics.NONE);
		LockKeys keys = LockKeys.of("baton:lock:", "yield");
		assertThat(commands.acquire(keys, "instance-a:1", 30_000, 60_000, 0)).isPositive();
		assertThat(commands.acquire(keys, "instance-a:2", 30_000, 60_000, 60_000)).isNotPositive();
		// Only the holder's own instance waits: nobody to yield to.
		assertThat(commands.yieldToAll(keys, "instance-a:1")).isEqualTo(LockCommands.Released.RELEASED);

		assertThat(commands.acquire(keys, "instance-a:3", 30_000, 60_000, 0)).isPositive();
		assertThat(commands.acquire(keys, "instance-b:1", 30_000, 60_000, 60_000)).isNotPositive();
		// Nobody subscribes to the lock's channel, as on a cluster where instance b listens through
		// another node than the lock's: PUBLISH reaches no one, yet instance b waits.
		assertThat(commands.yieldToAll(keys, "instance-a:3")).isEqualTo(LockCommands.Released.AWAITED_ELSEWHERE);
	}

	@Test
	void holderHandsTheLockToAWaiterOfItsJvmWithoutFreeingIt() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		long holderToken = holder.fencingToken();
		Waiter waiter = startWaiter(locks);
		InLine.awaitInLine(waiter.thread());
		long deletesBefore = CommandStats.calls(this.redis, "del");

		holder.release();

		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(holderToken);
		assertThat(CommandStats.calls(this.redis, "del")).as("deletes of the lock key").isEqualTo(deletesBefore);
		assertThat(manager().tryAcquire("doc", Duration.ZERO)).as("the lock is never free in between").isEmpty();
		next.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void waitersOfAnotherInstanceAreNotStarvedByHandOffsAndTokensKeepIncreasing() throws Exception {
		RedisLockManager first = manager();
		RedisLockManager second = manager();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicLong lastToken = new AtomicLong();
		AtomicInteger tokensNotIncreasing = new AtomicInteger();
		AtomicInteger[] pairs = { new AtomicInteger(), new AtomicInteger() };
		AtomicInteger lastInstance = new AtomicInteger(-1);
		AtomicInteger run = new AtomicInteger();
		AtomicInteger longestRun = new AtomicInteger();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Future<?>> results = new ArrayList<>();
		for (int t = 0; t < 6; t++) {
			int instance = t % 2;
			RedisLockManager locks = (instance == 0) ? first : second;
			results.add(this.threads.submit(() -> {
				while (running.get()) {
					LockLease lease = locks.tryAcquire("shared", Duration.ofSeconds(30)).orElseThrow();
					if (inside.incrementAndGet() > 1) {
						overlaps.incrementAndGet();
					}
					// Holders follow one another, passed on within an instance or not: tokens only grow.
					if (lastToken.getAndSet(lease.fencingToken()) >= lease.fencingToken()) {
						tokensNotIncreasing.incrementAndGet();
					}
					if (lastInstance.getAndSet(instance) != instance) {
						run.set(0);
					}
					longestRun.accumulateAndGet(run.incrementAndGet(), Math::max);
					inside.decrementAndGet();
					pairs[instance].incrementAndGet();
					lease.release();
				}
				return null;
			}));
		}
		Thread.sleep(2000);
		running.set(false);
		for (Future<?> result : results) {
			result.get(30, TimeUnit.SECONDS);
		}

		assertThat(overlaps).hasValue(0);
		assertThat(tokensNotIncreasing).hasValue(0);
		int total = pairs[0].get() + pairs[1].get();
		assertThat(pairs).as("pairs per instance of %d", total)
			.allSatisfy((count) -> assertThat(count.get()).isGreaterThan(total / 4));
		// An instance keeps the lock for 16 hand-offs, then both compete: long runs mean starvation.
		assertThat(longestRun).as("longest run of one instance").hasValueLessThan(500);
	}

	@Test
	void waiterWhoseWaitRanOutIsNotHandedTheLock() {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();

		assertThat(locks.tryAcquire("doc", Duration.ofMillis(300))).isEmpty();
		holder.release();

		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void interruptedWaiterIsNotHandedTheLock() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		AtomicReference<Thread> waiter = new AtomicReference<>();
		Future<Boolean> waited = this.threads.submit(() -> {
			waiter.set(Thread.currentThread());
			RedisLock lock = locks.getLock("doc");
			try {
				lock.lockInterruptibly();
				return true;
			}
			catch (InterruptedException ex) {
				return false;
			}
		});
		InLine.awaitInLine(waiter);

		waiter.get().interrupt();

		assertThat(waited.get(5, TimeUnit.SECONDS)).as("acquired").isFalse();
		holder.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void renewedLockPassesToAWaiterOfItsJvmWithoutARedisCallAndWithTheNextReservedToken() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		// Asking for the token reserves those after it for the waiters of this JVM.
		long holderToken = holder.fencingToken();
		String ownerInRedis = this.redis.opsForValue().get("baton:lock:{doc}");
		Waiter waiter = startWaiter(locks);
		InLine.awaitInLine(waiter.thread());
		long scriptCallsBefore = CommandStats.calls(this.redis, "evalsha");

		holder.release();

		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isEqualTo(holderToken + 1);
		assertThat(CommandStats.calls(this.redis, "evalsha")).as("script calls of the hand-off").isEqualTo(scriptCallsBefore);
		assertThat(this.redis.opsForValue().get("baton:lock:{doc}")).isEqualTo(ownerInRedis);
		assertThat(Long.parseLong(this.redis.opsForValue().get("baton:lock:{doc}:fence")))
			.as("last token reserved in Redis").isGreaterThanOrEqualTo(next.fencingToken());
		holder.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).as("released twice by the former holder").isTrue();
		next.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
		assertThat(manager().tryAcquire("doc", Duration.ZERO).orElseThrow().fencingToken())
			.as("the next acquisition in Redis").isGreaterThan(holderToken + LockCommands.RESERVED_TOKENS - 1);
	}

	@Test
	void holderThatNeverAskedForItsTokenHandsOverInRedisAndTheWaiterHasOneAtOnce() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		String holderInRedis = this.redis.opsForValue().get("baton:lock:{doc}");
		Waiter waiter = startWaiter(locks);
		InLine.awaitInLine(waiter.thread());

		holder.release();

		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		assertThat(this.redis.opsForValue().get("baton:lock:{doc}")).as("owner in Redis").isNotEqualTo(holderInRedis);
		long scriptCallsBefore = CommandStats.calls(this.redis, "evalsha");
		assertThat(next.fencingToken()).isPositive();
		assertThat(CommandStats.calls(this.redis, "evalsha")).as("script calls for the token").isEqualTo(scriptCallsBefore);
		next.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void lockWithALeaseTimeChangesHandsInRedis() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		long holderToken = holder.fencingToken();
		String holderInRedis = this.redis.opsForValue().get("baton:lock:{doc}");
		Waiter waiter = startWaiter(locks, Duration.ofSeconds(30));
		InLine.awaitInLine(waiter.thread());

		holder.release();

		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(holderToken + LockCommands.RESERVED_TOKENS - 1);
		assertThat(this.redis.opsForValue().get("baton:lock:{doc}")).isNotEqualTo(holderInRedis);
		next.release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	@Test
	void renewedLockLostInRedisIsFoundLostByTheWaiterItPassedTo() throws Exception {
		RedisLockManager locks = this.managers.manager(Duration.ofMillis(1500));
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		holder.fencingToken();
		Waiter waiter = startWaiter(locks);
		InLine.awaitInLine(waiter.thread());
		this.redis.opsForValue().set("baton:lock:{doc}", "someone else", Duration.ofSeconds(30));

		holder.release();

		// Passed on without a Redis call, so the loss shows at the next renewal (a third of the lease).
		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(3)).until(() -> !next.isValid());
		// Lock-lost listeners run on a thread of their own.
		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.lostEvents.stream()
			.anyMatch((event) -> event.fencingToken() == next.fencingToken()));
		assertThat(this.redis.opsForValue().get("baton:lock:{doc}")).isEqualTo("someone else");
	}

	@Test
	void lostLockIsNotHandedOnAndStaysWithItsNewOwner() throws Exception {
		RedisLockManager locks = manager();
		// A lease time: the hand-off goes through Redis, which finds the lock taken.
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		Waiter waiter = startWaiter(locks);
		InLine.awaitInLine(waiter.thread());
		this.redis.opsForValue().set("baton:lock:{doc}", "someone else", Duration.ofSeconds(30));

		holder.release();

		assertThat(this.redis.opsForValue().get("baton:lock:{doc}")).isEqualTo("someone else");
		InLine.awaitInLine(waiter.thread());
		assertThat(waiter.lease()).isNotDone();
		manager().getLock("doc").forceUnlock();
		LockLease next = waiter.lease().get(5, TimeUnit.SECONDS);
		assertThat(next.isValid()).isTrue();
		next.release();
	}

	@Test
	void newcomerOfTheJvmGetsInLineWithoutAskingRedis() throws Exception {
		RedisLockManager locks = manager();
		LockLease holder = locks.tryAcquire("doc", Duration.ZERO).orElseThrow();
		Waiter first = startWaiter(locks);
		InLine.awaitInLine(first.thread());
		long scriptCallsBefore = CommandStats.calls(this.redis, "evalsha");
		Waiter newcomer = startWaiter(locks);
		InLine.awaitInLine(newcomer.thread());

		assertThat(CommandStats.calls(this.redis, "evalsha")).as("script calls of the newcomer").isEqualTo(scriptCallsBefore);
		holder.release();
		LockLease firstLease = first.lease().get(5, TimeUnit.SECONDS);
		InLine.awaitInLine(newcomer.thread());
		firstLease.release();
		newcomer.lease().get(5, TimeUnit.SECONDS).release();
		assertThat(this.redis.hasKey("baton:lock:{doc}")).isFalse();
	}

	/** Starts a thread that waits up to 20 s for lock {@code doc}, renewed by the watchdog. */
	private Waiter startWaiter(RedisLockManager locks) {
		return startWaiter(locks, null);
	}

	/** Starts a thread that waits up to 20 s for lock {@code doc}, with the given lease time. */
	private Waiter startWaiter(RedisLockManager locks, @Nullable Duration leaseTime) {
		AtomicReference<Thread> thread = new AtomicReference<>();
		Future<LockLease> lease = this.threads.submit(() -> {
			thread.set(Thread.currentThread());
			return locks.tryAcquire("doc", Duration.ofSeconds(20), leaseTime).orElseThrow();
		});
		return new Waiter(thread, lease);
	}

	private record Waiter(AtomicReference<Thread> thread, Future<LockLease> lease) {
	}

}
