package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import dev.baton.support.CommandStats;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@RedisTest
class RedisLockManagerTests {

	private TestLockManagers managers;

	private RedisConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.connectionFactory = connectionFactory;
		this.redis = redis;
		this.managers = new TestLockManagers(connectionFactory);
	}

	@AfterEach
	void closeManagers() {
		this.managers.close();
	}

	private RedisLockManager manager(Duration leaseTime) {
		return this.managers.manager(leaseTime);
	}

	private RedisLockManager manager() {
		return this.managers.manager();
	}

	@Test
	void excludesThreadsOfOneJvmAndOfSeveralManagers() throws Exception {
		RedisLockManager first = manager();
		RedisLockManager second = manager();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		int[] counter = { 0 };
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> results = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			RedisLockManager manager = (t % 2 == 0) ? first : second;
			results.add(threads.submit(() -> {
				for (int i = 0; i < 25; i++) {
					RedisLock lock = manager.getLock("counter");
					lock.lock();
					try {
						if (inside.incrementAndGet() > 1) {
							overlaps.incrementAndGet();
						}
						int read = counter[0];
						Thread.yield();
						counter[0] = read + 1;
						inside.decrementAndGet();
					}
					finally {
						lock.unlock();
					}
				}
				return null;
			}));
		}
		for (Future<?> result : results) {
			result.get(60, TimeUnit.SECONDS);
		}
		threads.shutdown();
		assertThat(overlaps).hasValue(0);
		assertThat(counter[0]).isEqualTo(200);
		assertThat(this.redis.hasKey("baton:lock:{counter}")).isFalse();
	}

	@Test
	void leaseReleasedAfterItRanOutDoesNotDeleteTheNewOwnersLock() {
		RedisLockManager locks = manager();
		LockLease stale = locks.tryAcquire("order:1", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{order:1}"));
		LockLease current = locks.tryAcquire("order:1", Duration.ZERO).orElseThrow();

		assertThat(stale.isValid()).isFalse();
		stale.release();

		assertThat(current.isValid()).isTrue();
		assertThat(this.redis.hasKey("baton:lock:{order:1}")).isTrue();
		assertThat(locks.tryAcquire("order:1", Duration.ZERO)).isEmpty();
		current.release();
		assertThat(this.redis.hasKey("baton:lock:{order:1}")).isFalse();
	}

	@Test
	void unlockAfterTheLeaseRanOutThrowsAndKeepsTheNewOwner() throws Exception {
		RedisLockManager locks = manager();
		RedisLock lock = locks.getLock("document:7");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(100))).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
		LockLease other = manager().tryAcquire("document:7", Duration.ZERO).orElseThrow();

		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("document:7")
			.hasMessageContaining("lost");
		assertThat(other.isValid()).isTrue();
		assertThat(lock.isLocked()).isTrue();
		// Lock-lost listeners run on a thread of their own.
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.managers.lostEvents.isEmpty());
		assertThat(this.managers.lostEvents).extracting(LockLostEvent::name).containsExactly("document:7");
	}

	@Test
	void unlockByAnotherThreadThrowsAndLeavesTheLockHeld() throws Exception {
		RedisLock lock = manager().getLock("report");
		lock.lock();
		Future<?> other = Executors.newSingleThreadExecutor().submit(lock::unlock);

		assertThatThrownBy(() -> other.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("report");
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void reentersWithoutARoundTripAndReleasesOnTheOutermostUnlock() {
		RedisLockManager locks = manager();
		RedisLock lock = locks.getLock("nested");
		lock.lock();
		long token = lock.getFencingToken();
		long scriptCalls = CommandStats.calls(this.redis, "eval", "evalsha");

		RedisLock again = locks.getLock("nested");
		assertThat(again.tryLock()).isTrue();
		again.lock();

		assertThat(CommandStats.calls(this.redis, "eval", "evalsha")).isEqualTo(scriptCalls);
		assertThat(lock.getHoldCount()).isEqualTo(3);
		assertThat(again.getFencingToken()).isEqualTo(token);
		again.unlock();
		again.unlock();
		assertThat(lock.isLocked()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(lock.getHoldCount()).isZero();
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
	}

	@Test
	void watchdogKeepsALockPastItsLease() throws Exception {
		RedisLockManager locks = manager(Duration.ofMillis(600));
		LockLease lease = locks.tryAcquire("long-job", Duration.ZERO).orElseThrow();

		Thread.sleep(2000);

		assertThat(lease.isValid()).isTrue();
		assertThat(this.redis.getExpire("baton:lock:{long-job}", TimeUnit.MILLISECONDS)).isPositive();
		assertThat(manager().tryAcquire("long-job", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{long-job}")).isFalse();
		assertThat(this.managers.lostEvents).isEmpty();
	}

	@Test
	void watchdogReportsALockTakenBehindItsBack() {
		RedisLockManager locks = manager(Duration.ofMillis(600));
		LockLease lease = locks.tryAcquire(LockRequest.of("order:9").group("order").build()).orElseThrow();
		long token = lease.fencingToken();
		RedisLock lock = locks.getLock("order:10");
		lock.lock();

		this.redis.delete("baton:lock:{order:9}");
		this.redis.opsForValue().set("baton:lock:{order:10}", "someone else");

		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.lostEvents.size() == 2);
		assertThat(this.managers.lostEvents).extracting(LockLostEvent::name).containsExactlyInAnyOrder("order:9", "order:10");
		assertThat(this.managers.lostEvents).filteredOn((event) -> event.name().equals("order:9"))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.group()).isEqualTo("order");
				assertThat(event.fencingToken()).isEqualTo(token);
			});
		// order:10, a programmatic lock, is in the default group of its name too
		assertThat(this.managers.meters.get("baton.lock.lost").tag("lock", "order").counter().count()).isEqualTo(2);
		assertThat(lease.isValid()).isFalse();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(this.redis.opsForValue().get("baton:lock:{order:10}")).isEqualTo("someone else");
	}

	@Test
	void makesItsThreadsWithTheBuildersThreadFactoryNamedAndDaemon() {
		List<Thread> made = new CopyOnWriteArrayList<>();
		RedisLockManager locks = this.managers.manager((builder) -> builder.leaseTime(Duration.ofMillis(600))
			.threadFactory((task) -> {
				Thread thread = new Thread(task, "made-by-the-application");
				made.add(thread);
				return thread;
			}));
		LockLease elsewhere = manager().tryAcquire("taken", Duration.ZERO).orElseThrow();
		// A wait subscribes to the lock's release channel; a lock deleted behind its holder's back is reported.
		assertThat(locks.tryAcquire("taken", Duration.ofMillis(300))).isEmpty();
		locks.tryAcquire("deleted", Duration.ZERO).orElseThrow();
		this.redis.delete("baton:lock:{deleted}");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.lostEvents.size() == 1);

		assertThat(made).extracting(Thread::getName)
			.contains("baton-lock-watchdog", "baton-lock-subscriptions", "baton-lock-waiters", "baton-lock-events")
			.doesNotContain("made-by-the-application");
		assertThat(made).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		elsewhere.release();
	}

	@Test
	void fencingTokensIncreaseAcrossManagersEvenWhenTheServerClockStepsBack() {
		RedisLockManager first = manager();
		RedisLockManager second = manager();
		long previous = 0;
		for (int i = 0; i < 20; i++) {
			LockLease lease = ((i % 2 == 0) ? first : second).tryAcquire("fenced", Duration.ZERO).orElseThrow();
			assertThat(lease.fencingToken()).isGreaterThan(previous);
			previous = lease.fencingToken();
			lease.release();
		}
		// A token far in the future stands for a clock that has since stepped back.
		this.redis.opsForValue().set("baton:lock:{fenced}:fence", String.valueOf(previous + 1_000_000_000L));
		LockLease lease = first.tryAcquire("fenced", Duration.ZERO).orElseThrow();
		assertThat(lease.fencingToken()).isEqualTo(previous + 1_000_000_001L);
		// The fence keeps the last of the tokens reserved for hand-offs within the holder's JVM.
		long lastReserved = lease.fencingToken() + LockCommands.RESERVED_TOKENS - 1;
		assertThat(this.redis.opsForValue().get("baton:lock:{fenced}:fence")).isEqualTo(String.valueOf(lastReserved));
		assertThat(this.redis.getExpire("baton:lock:{fenced}:fence")).isPositive();
		lease.release();
		assertThat(second.tryAcquire("fenced", Duration.ZERO).orElseThrow().fencingToken()).isEqualTo(lastReserved + 1);
	}

	@Test
	void waiterIsWokenByTheReleaseNotByTheLeaseRunningOut() throws Exception {
		RedisLockManager holder = manager();
		RedisLockManager waiter = manager();
		LockLease held = holder.tryAcquire("handoff", Duration.ZERO).orElseThrow();
		CountDownLatch waiting = new CountDownLatch(1);
		Future<Long> waited = Executors.newSingleThreadExecutor().submit(() -> {
			waiting.countDown();
			long start = System.nanoTime();
			LockLease lease = waiter.tryAcquire("handoff", Duration.ofSeconds(20)).orElseThrow();
			lease.release();
			return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		});
		waiting.await();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.hasKey("baton:lock:{handoff}:waiting"));
		Thread.sleep(200);

		held.release();

		// The holder's lease had 30 s left: only the release can have woken the waiter this early.
		assertThat(waited.get(20, TimeUnit.SECONDS)).isLessThan(10_000);
	}

	@Test
	void manyWaitersOfOneJvmTakeTurns() throws Exception {
		RedisLockManager locks = manager();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger acquired = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(6);
		List<Future<?>> results = new ArrayList<>();
		for (int t = 0; t < 6; t++) {
			results.add(threads.submit(() -> {
				for (int i = 0; i < 10; i++) {
					LockLease lease = locks.tryAcquire("turns", Duration.ofSeconds(30)).orElseThrow();
					assertThat(inside.incrementAndGet()).isEqualTo(1);
					inside.decrementAndGet();
					acquired.incrementAndGet();
					lease.release();
				}
				return null;
			}));
		}
		for (Future<?> result : results) {
			result.get(60, TimeUnit.SECONDS);
		}
		threads.shutdown();
		assertThat(acquired).hasValue(60);
		assertThat(this.managers.meters.get("baton.lock.acquire").tag("lock", "turns").tag("outcome", "acquired").timer().count())
			.isEqualTo(60);
	}

	@Test
	void waitingThreadsOfOneJvmDoNotPollRedis() throws Exception {
		LockLease held = manager().tryAcquire("quiet", Duration.ZERO).orElseThrow();
		RedisLockManager waiters = manager();
		ExecutorService threads = Executors.newFixedThreadPool(6);
		List<Future<Boolean>> results = new ArrayList<>();
		for (int t = 0; t < 6; t++) {
			results.add(threads.submit(() -> {
				LockLease lease = waiters.tryAcquire("quiet", Duration.ofSeconds(30)).orElseThrow();
				lease.release();
				return true;
			}));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.hasKey("baton:lock:{quiet}:waiting"));
		Thread.sleep(300);
		long before = CommandStats.calls(this.redis, "eval", "evalsha");

		Thread.sleep(1500);

		assertThat(CommandStats.calls(this.redis, "eval", "evalsha") - before).as("script calls while six threads wait")
			.isZero();
		held.release();
		for (Future<Boolean> result : results) {
			assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
		}
		threads.shutdown();
	}

	@Test
	void waitersSubscribeAndUnsubscribeUnderChurn() throws Exception {
		RedisLockManager locks = manager();
		RedisLockManager other = manager();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> results = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			RedisLockManager manager = (t % 2 == 0) ? locks : other;
			results.add(threads.submit(() -> {
				for (int i = 0; i < 100; i++) {
					manager.tryAcquire("churn:" + (i % 3), Duration.ofSeconds(30)).orElseThrow().release();
				}
				return null;
			}));
		}
		for (Future<?> result : results) {
			result.get(90, TimeUnit.SECONDS);
		}
		threads.shutdown();
	}

	@Test
	void waitRunsOutWithATimeout() {
		RedisLockManager locks = manager();
		LockLease held = locks.tryAcquire("busy", Duration.ZERO).orElseThrow();

		assertThat(manager().tryAcquire("busy", Duration.ofMillis(300))).isEmpty();
		assertThatThrownBy(() -> locks.withLock("busy", Duration.ofMillis(100), () -> "never"))
			.isInstanceOf(LockNotAcquiredException.class)
			.hasMessageContaining("busy");
		assertThat(this.managers.meters.get("baton.lock.acquire").tag("outcome", "timeout").timers()).hasSize(1);
		assertThat(this.managers.meters.get("baton.lock.active").gauges()).extracting((gauge) -> gauge.value())
			.containsExactly(1.0);
		assertThat(this.managers.meters.get("baton.lock.lost").tag("lock", "busy").counter().count())
			.as("lost counter, registered before any loss")
			.isZero();
		held.release();
		assertThat(this.managers.meters.get("baton.lock.held").tag("lock", "busy").timer().count()).isEqualTo(1);
		assertThat(locks.withLock("busy", Duration.ZERO, () -> "done")).isEqualTo("done");
	}

	@Test
	void lockAtLeastForKeepsTheLockAfterAFastRelease() {
		RedisLockManager locks = manager();
		LockLease lease = locks.tryAcquire("nightly", Duration.ZERO).orElseThrow();

		lease.release(Duration.ofSeconds(5));

		assertThat(lease.isValid()).isFalse();
		assertThat(locks.tryAcquire("nightly", Duration.ZERO)).isEmpty();
		assertThat(this.redis.getExpire("baton:lock:{nightly}", TimeUnit.MILLISECONDS)).isBetween(1L, 5000L);
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{nightly}")).isTrue();
		// A renewal that was already on its way when the lease was released cannot extend it.
		RedisLockLease released = (RedisLockLease) lease;
		assertThat(new LockCommands(BatonThreads.PLATFORM, this.connectionFactory, Duration.ofSeconds(2), 0, Duration.ofSeconds(1), LockMetrics.NONE).extendAll(List.of(released.keys()),
				List.of(released.owner()), 30_000, Duration.ofSeconds(2)))
			.containsExactly(false);
		assertThat(this.redis.getExpire("baton:lock:{nightly}", TimeUnit.MILLISECONDS)).isBetween(1L, 5000L);
	}

	@Test
	void closeLeavesLocksOfRunningHoldersToExpireAndTheyStillReleaseOnReturn() {
		RedisLockManager locks = RedisLockManager.builder(this.connectionFactory).build();
		LockLease running = locks.tryAcquire("a", Duration.ZERO).orElseThrow();
		RedisLock lock = locks.getLock("b");
		lock.lock();

		locks.close();

		assertThat(this.redis.keys("baton:lock:{?}")).containsExactlyInAnyOrder("baton:lock:{a}", "baton:lock:{b}");
		assertThat(this.redis.getExpire("baton:lock:{a}", TimeUnit.MILLISECONDS)).isBetween(1L, 30_000L);
		running.release();
		lock.unlock();
		assertThat(this.redis.keys("baton:lock:{?}")).isEmpty();
	}

	@Test
	void rejectsBadInputWithoutWritingAnything() {
		RedisLockManager locks = manager();
		assertThatIllegalArgumentException().isThrownBy(() -> locks.getLock(" ")).withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.tryAcquire("x", Duration.ofSeconds(-1)))
			.withMessageContaining("negative");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.tryAcquire("x", Duration.ZERO, Duration.ZERO))
			.withMessageContaining("positive");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.getLock("x").tryLock(Duration.ofMillis(-1), null))
			.withMessageContaining("negative");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisLockManager.builder(this.connectionFactory).keyPrefix("app:{x}:"))
			.withMessageContaining("braces");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.tryAcquire(null, Duration.ZERO))
			.withMessageContaining("Lock name must not be null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> locks.tryAcquire("x", Duration.ZERO, Duration.ofMillis(Long.MAX_VALUE)))
			.withMessageContaining("longer than the longest lease Redis keeps")
			.withMessageContaining("36500 days");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisLockManager.builder(this.connectionFactory).leaseTime(Duration.ofDays(40_000)))
			.withMessageContaining("36500 days");
		assertThat(this.redis.keys("*")).isEmpty();
	}

	@Test
	void aWaitTooLongToCountInNanosecondsMeansWaitAsLongAsItTakes() throws Exception {
		RedisLockManager locks = manager();
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		locks.tryAcquire("a", forever).orElseThrow().release();
		RedisLock lock = locks.getLock("b");
		assertThat(lock.tryLock(forever, null)).isTrue();
		lock.unlock();
	}

	@Test
	void interruptibleAcquisitionsOfAnInterruptedThreadThrowAsLockRequires() {
		RedisLock lock = manager().getLock("a");
		Thread.currentThread().interrupt();
		assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
		Thread.currentThread().interrupt();
		assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		Thread.currentThread().interrupt();
		assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(InterruptedException.class);
		assertThat(Thread.interrupted()).as("the interrupt was consumed by the exception").isFalse();
		assertThat(this.redis.keys("*")).isEmpty();
	}

}
