package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.baton.lock.LockLease;
import dev.baton.lock.RedisLock;
import dev.baton.test.RedisTest;
import io.lettuce.core.cluster.SlotHash;
import io.micrometer.core.instrument.Meter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/** Locks under the failures of issue 12 that need no network fault: interrupts, listeners, loss, keys, meters. */
@RedisTest
class RedisLockFaultTests {

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
		this.managers = new TestLockManagers(connectionFactory);
	}

	@AfterEach
	void closeManagers() {
		Thread.interrupted();
		this.managers.close();
	}

	private RedisLockManager manager(UnaryOperator<RedisLockManager.Builder> customizer) {
		return this.managers.manager(customizer);
	}

	private RedisLockManager manager() {
		return this.managers.manager();
	}

	@Test
	void interruptedHolderStillReleasesAndKeepsItsInterrupt() {
		RedisLockManager locks = manager();
		LockLease lease = locks.tryAcquire("job", Duration.ZERO).orElseThrow();
		RedisLock lock = locks.getLock("report");
		lock.lock();

		Thread.currentThread().interrupt();
		lease.release();
		lock.unlock();

		assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
		assertThat(this.redis.keys("baton:lock:*")).allMatch((key) -> key.endsWith(":fence"));
		assertThat(locks.heldCount()).isZero();
	}

	@Test
	void interruptedCallerStillAcquiresWithoutWaitAndTheOutcomeIsKnown() {
		RedisLockManager locks = manager();

		Thread.currentThread().interrupt();
		LockLease lease = locks.tryAcquire("job", Duration.ZERO).orElseThrow();

		assertThat(Thread.interrupted()).isTrue();
		assertThat(this.redis.opsForValue().get("baton:lock:{job}")).isNotNull();
		lease.release();
		assertThat(this.redis.hasKey("baton:lock:{job}")).isFalse();
	}

	@Test
	void lockLostListenerThatThrowsAnErrorDoesNotStopRenewalOfOtherLocks() {
		List<String> listenerThreads = new CopyOnWriteArrayList<>();
		RedisLockManager locks = manager((builder) -> builder
			.leaseTime(Duration.ofMillis(600))
			.lockLostListener((event) -> {
				listenerThreads.add(Thread.currentThread().getName());
				throw new StackOverflowError("listener bug");
			}));
		LockLease doomed = locks.tryAcquire("doomed", Duration.ZERO).orElseThrow();
		LockLease healthy = locks.tryAcquire("healthy", Duration.ZERO).orElseThrow();

		this.redis.delete("baton:lock:{doomed}");
		await().atMost(Duration.ofSeconds(5)).until(() -> !doomed.isValid() && !listenerThreads.isEmpty());
		this.redis.delete("baton:lock:{doomed}");

		// Several lease times later the healthy lock is still renewed by the same watchdog.
		await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
		assertThat(healthy.isValid()).isTrue();
		assertThat(this.redis.getExpire("baton:lock:{healthy}", TimeUnit.MILLISECONDS)).isBetween(1L, 600L);
		assertThat(listenerThreads).containsOnly("baton-lock-events");
		healthy.release();
	}

	@Test
	void slowLockLostListenerDoesNotStallRenewal() {
		RedisLockManager locks = manager((builder) -> builder
			.leaseTime(Duration.ofMillis(600))
			.lockLostListener((event) -> sleep(3000)));
		LockLease doomed = locks.tryAcquire("doomed", Duration.ZERO).orElseThrow();
		LockLease healthy = locks.tryAcquire("healthy", Duration.ZERO).orElseThrow();

		this.redis.delete("baton:lock:{doomed}");
		await().atMost(Duration.ofSeconds(5)).until(() -> !doomed.isValid());

		await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
		assertThat(healthy.isValid()).isTrue();
		assertThat(this.redis.hasKey("baton:lock:{healthy}")).isTrue();
		healthy.release();
	}

	@Test
	void reenteringALostLockDoesNotSucceedWhileAnotherOwnerHoldsIt() throws Exception {
		RedisLockManager locks = this.managers.manager(Duration.ofMillis(600));
		RedisLock lock = locks.getLock("document:7");
		lock.lock();
		this.redis.delete("baton:lock:{document:7}");
		RedisLockManager other = manager();
		LockLease theirs = other.tryAcquire("document:7", Duration.ZERO).orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.lostEvents.size() == 1);
		assertThat(lock.isHeldByCurrentThread()).isFalse();

		assertThat(lock.tryLock()).as("re-entry of a lost lock").isFalse();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(theirs.isValid()).isTrue();

		theirs.release();
		assertThat(lock.tryLock(Duration.ZERO, null)).as("acquired afresh once free").isTrue();
		assertThat(lock.getHoldCount()).isOne();
		lock.unlock();
		assertThat(this.redis.hasKey("baton:lock:{document:7}")).isFalse();
	}

	@Test
	void namesWithBracesKeepEachLockInOneSlotAndApartFromOthers() {
		RedisLockManager locks = manager();
		List<String> names = List.of("a}b", "a}c", "{x}", "{x}y", "plain", "a%7Db");
		Set<Integer> slots = names.subList(0, 5).stream()
			.map((name) -> LockKeys.of("baton:lock:", name))
			.peek((keys) -> assertThat(Stream.of(keys.lock(), keys.fence(), keys.waiting()).map(SlotHash::getSlot)
				.distinct()).as("slots of " + keys).hasSize(1))
			.map((keys) -> SlotHash.getSlot(keys.lock()))
			.collect(Collectors.toSet());
		assertThat(slots).as("each name its own slot").hasSize(5);

		List<LockLease> leases = names.stream().map((name) -> locks.tryAcquire(name, Duration.ZERO).orElseThrow()).toList();
		leases.forEach(LockLease::fencingToken);
		assertThat(this.redis.keys("baton:lock:*")).as("locks and fences").hasSize(names.size() * 2);
		for (String name : names) {
			assertThat(locks.tryAcquire(name, Duration.ZERO)).as(name).isEmpty();
		}
		leases.forEach(LockLease::release);
		assertThat(this.redis.keys("baton:lock:*")).allMatch((key) -> key.endsWith(":fence"));
	}

	@Test
	void tooLongNamesAreRefusedWithoutWritingAnything() {
		RedisLockManager locks = manager();
		String name = "x".repeat(1025);

		assertThatIllegalArgumentException().isThrownBy(() -> locks.getLock(name))
			.withMessageContaining("1025 characters")
			.withMessageContaining("baton.lock.max-name-length");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.tryAcquire(name, Duration.ZERO))
			.withMessageContaining("1024");
		assertThat(this.redis.keys("*")).isEmpty();
	}

	@Test
	void programmaticLockNamesThatCarryIdsDoNotMultiplyMeters() {
		RedisLockManager locks = manager();
		for (int i = 0; i < 300; i++) {
			locks.tryAcquire("settlement:" + i, Duration.ZERO).orElseThrow().release();
			RedisLock lock = locks.getLock("inventory:" + i);
			lock.lock();
			lock.unlock();
		}
		assertThat(this.managers.meters.getMeters().stream().map((meter) -> meter.getId().getTag("lock")).distinct())
			.containsExactlyInAnyOrder(null, "settlement", "inventory");

		for (int i = 0; i < 300; i++) {
			locks.tryAcquire("order-" + i, Duration.ZERO).orElseThrow().release();
		}
		List<Meter> all = this.managers.meters.getMeters();
		// 100 groups, "other", and the untagged active-locks gauge
		assertThat(all.stream().map((meter) -> meter.getId().getTag("lock")).distinct()).hasSize(102)
			.contains("other");
		assertThat(all).hasSizeLessThan(500);
	}

	@Test
	void leasesWithALeaseTimeThatRanOutAreForgotten() {
		RedisLockManager locks = manager((builder) -> builder
			.leaseTime(Duration.ofMillis(300)));
		locks.tryAcquire("forgotten", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		assertThat(this.managers.meters.get("baton.lock.active").gauge().value()).isOne();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.meters.get("baton.lock.active").gauge().value() == 0);
		assertThat(locks.heldCount()).isZero();
		assertThat(this.managers.lostEvents).isEmpty();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
