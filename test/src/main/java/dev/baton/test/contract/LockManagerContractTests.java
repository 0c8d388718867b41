package dev.baton.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.RedisLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * What every {@link LockManager} promises when nothing fails (see {@code docs/guarantees.md}):
 * extend it to check an implementation of your own, as Baton checks its Redis lock manager on a
 * single server, a Cluster and Sentinel, and {@link dev.baton.test.lock.InMemoryLockManager}.
 *
 * <pre class="code">
 * class MyLockManagerContractTests extends LockManagerContractTests {
 *
 *     &#64;Override
 *     protected LockManager createLockManager(Duration leaseTime) {
 *         return new MyLockManager(sharedStore, leaseTime);
 *     }
 *
 * }
 * </pre>
 *
 * <p>Covered: mutual exclusion between instances and threads (a seeded fuzz with an overlap
 * counter and a fenced register; {@code -Dbaton.contract.seed=...} replays a seed), reentrant
 * thread-owned {@link RedisLock}s and non-reentrant {@link LockLease}s, fencing tokens that grow
 * in the order the lock is held and are never given to a holder that lost the lock, leases that
 * run out and free the lock, lost leases reported as lost, a crashed instance's locks freed after
 * its lease, waits that end empty while the lock is held, released locks free at once,
 * {@code release(lockAtLeastFor)}, {@code forceUnlock()}, {@code isLocked()}, {@code withLock}
 * and blank names, and locks that cross instances: a lease handed over and restored on another
 * instance with its fencing token, a token that restores once and never touches a new owner's
 * lock, {@code extend} and {@code releaseAll()}. Not covered: failures of the store, failover,
 * and the timing of renewals.
 *
 * <p>Lock names are unique per test, so tests need not empty the store. Managers that are
 * {@link AutoCloseable} are closed after each test.
 */
public abstract class LockManagerContractTests {

	/** The seed of the mutual exclusion fuzz unless {@code baton.contract.seed} names another. */
	private static final long DEFAULT_SEED = 2026;

	private final List<LockManager> instances = new ArrayList<>();

	private String run = "";

	/**
	 * A new instance of the application: a lock manager over the same locks as every other one
	 * created in the same test (another process using the same Redis, say). The suite calls it
	 * several times per test.
	 * @param leaseTime how long a lock taken without a lease time of its own stays held once
	 * nothing renews it (Baton's {@code baton.lock.lease-time})
	 * @return the lock manager
	 */
	protected abstract LockManager createLockManager(Duration leaseTime);

	/**
	 * Let {@code duration} pass for the leases of the managers of this test. The default sleeps,
	 * for implementations whose leases run out in real time; one on a clock that the test moves
	 * moves that clock instead.
	 * @param duration how much time passes
	 * @throws InterruptedException if interrupted while sleeping
	 */
	protected void passTime(Duration duration) throws InterruptedException {
		TimeUnit.NANOSECONDS.sleep(duration.toNanos());
	}

	/**
	 * Crash an instance: it stops renewing its locks without releasing them, so that they are
	 * freed one lease time later. The default closes a manager that is {@link AutoCloseable},
	 * which must then leave held locks to run out, as {@code RedisLockManager.close()} does.
	 * @param instance a manager that {@link #createLockManager} returned
	 * @throws Exception if crashing fails
	 */
	protected void crash(LockManager instance) throws Exception {
		if (!(instance instanceof AutoCloseable closeable)) {
			throw new UnsupportedOperationException(
					"Override crash(LockManager) to crash a " + instance.getClass().getName());
		}
		closeable.close();
	}

	/**
	 * A lease time for the tests of leases that run out: short enough to wait for with
	 * {@link #passTime}, long enough for a few calls to the store. The default is 300 ms.
	 * @return the lease time
	 */
	protected Duration shortLeaseTime() {
		return Duration.ofMillis(300);
	}

	@BeforeEach
	void newRun() {
		this.run = UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void closeInstances() throws Exception {
		for (LockManager instance : this.instances) {
			if (instance instanceof AutoCloseable closeable) {
				closeable.close();
			}
		}
		this.instances.clear();
	}

	private LockManager instance() {
		return instance(Duration.ofSeconds(30));
	}

	private LockManager instance(Duration leaseTime) {
		LockManager manager = createLockManager(leaseTime);
		this.instances.add(manager);
		// Connects now, so that connecting does not eat into the short leases of the test.
		manager.getLock(name("warm-up")).isLocked();
		return manager;
	}

	/** A lock name of this test only; names differ enough to spread over a cluster's primaries. */
	private String name(String base) {
		return base + "-" + this.run;
	}

	/** Long enough for a lease of {@link #shortLeaseTime()} to have run out. */
	private Duration beyondShortLease() {
		return shortLeaseTime().plus(shortLeaseTime().dividedBy(3));
	}

	@Test
	void instancesAndThreadsNeverHoldTheSameNameAtOnce() throws Exception {
		long seed = Long.getLong("baton.contract.seed", DEFAULT_SEED);
		List<LockManager> managers = List.of(instance(), instance(), instance());
		Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
		Map<String, AtomicLong> fence = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		AtomicInteger sections = new AtomicInteger();
		int threads = 8;
		int rounds = 25;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Random random = new Random(seed + t);
				LockManager manager = managers.get(t % managers.size());
				work.add(pool.submit(() -> {
					for (int i = 0; i < rounds; i++) {
						String name = name("stock") + ":" + random.nextInt(6);
						int holdMillis = random.nextInt(3);
						boolean askToken = random.nextBoolean();
						Consumer<LongSupplier> section = (token) -> {
							if (inside.computeIfAbsent(name, (n) -> new AtomicInteger()).incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							if (askToken) {
								long issued = token.getAsLong();
								AtomicLong highest = fence.computeIfAbsent(name, (n) -> new AtomicLong());
								if (highest.getAndAccumulate(issued, Math::max) >= issued) {
									refused.incrementAndGet();
								}
							}
							sleep(holdMillis);
							inside.get(name).decrementAndGet();
							sections.incrementAndGet();
						};
						if (random.nextBoolean()) {
							try (LockLease lease = manager.tryAcquire(name, Duration.ofSeconds(10)).orElseThrow()) {
								section.accept(lease::fencingToken);
							}
						}
						else {
							RedisLock lock = manager.getLock(name);
							if (!lock.tryLock(Duration.ofSeconds(10), null)) {
								throw new AssertionError("Lock '" + name + "' not acquired within 10 s, seed " + seed);
							}
							try {
								if (random.nextBoolean()) {
									assertThat(lock.tryLock(Duration.ZERO, null)).as("re-entered").isTrue();
									section.accept(lock::getFencingToken);
									lock.unlock();
								}
								else {
									section.accept(lock::getFencingToken);
								}
							}
							finally {
								lock.unlock();
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(overlaps).as("sections with a second holder inside, seed %d", seed).hasValue(0);
		assertThat(refused).as("fencing tokens not above the last one seen, seed %d", seed).hasValue(0);
		assertThat(sections).as("sections run, seed %d", seed).hasValue(threads * rounds);
	}

	private static void sleep(int millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void aReleasedLockIsFreeAtOnce() throws Exception {
		LockManager holder = instance();
		LockManager other = instance();
		String name = name("invoice");

		LockLease lease = holder.tryAcquire(name, Duration.ZERO).orElseThrow();
		assertThat(lease.name()).isEqualTo(name);
		assertThat(lease.isValid()).isTrue();
		assertThat(other.getLock(name).isLocked()).isTrue();
		lease.release();
		assertThat(lease.isValid()).isFalse();
		lease.release();
		assertThat(other.getLock(name).isLocked()).isFalse();

		RedisLock lock = other.getLock(name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		try (LockLease again = holder.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(again.isValid()).isTrue();
		}
	}

	@Test
	void aWaiterGetsTheLockWhenItIsReleased() throws Exception {
		LockManager holder = instance();
		LockManager waiter = instance();
		String name = name("ledger");
		LockLease lease = holder.tryAcquire(name, Duration.ZERO).orElseThrow();

		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			Future<Optional<LockLease>> waiting = thread.submit(() -> waiter.tryAcquire(name, Duration.ofSeconds(10)));
			Thread.sleep(100);
			assertThat(waiting).isNotDone();
			lease.release();
			Optional<LockLease> taken = waiting.get(5, TimeUnit.SECONDS);
			assertThat(taken).isPresent();
			taken.get().release();
		}
		finally {
			thread.shutdownNow();
		}
	}

	@Test
	void aWaitRunsOutEmptyWhileTheLockIsHeld() {
		LockManager holder = instance();
		LockManager other = instance();
		String name = name("report");
		try (LockLease lease = holder.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();
			long start = System.nanoTime();
			assertThat(other.tryAcquire(name, Duration.ofMillis(200))).isEmpty();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
			assertThat(lease.isValid()).isTrue();

			assertThatThrownBy(() -> other.withLock(name, Duration.ZERO, () -> fail("ran without the lock")))
				.isInstanceOf(LockNotAcquiredException.class);
		}
		assertThat(other.withLock(name, Duration.ZERO, () -> "ran")).isEqualTo("ran");
		assertThat(other.getLock(name).isLocked()).isFalse();
	}

	@Test
	void aRedisLockIsReentrantForItsThreadOnly() throws Exception {
		LockManager manager = instance();
		LockManager other = instance();
		String name = name("account");
		RedisLock lock = manager.getLock(name);
		assertThat(lock.getName()).isEqualTo(name);

		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		long token = lock.getFencingToken();
		assertThat(manager.getLock(name).tryLock(Duration.ZERO, null)).as("another RedisLock object, same thread").isTrue();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.getFencingToken()).as("the token of the outermost acquisition").isEqualTo(token);

		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			assertThat(thread.submit(() -> lock.tryLock(Duration.ZERO, null)).get(5, TimeUnit.SECONDS)).isFalse();
			assertThat(thread.submit(lock::isHeldByCurrentThread).get(5, TimeUnit.SECONDS)).isFalse();
			assertThat(thread.submit(lock::getHoldCount).get(5, TimeUnit.SECONDS)).isZero();
			Future<?> foreignUnlock = thread.submit(lock::unlock);
			assertThatThrownBy(() -> foreignUnlock.get(5, TimeUnit.SECONDS))
				.hasCauseInstanceOf(IllegalMonitorStateException.class);
		}
		finally {
			thread.shutdownNow();
		}
		assertThat(other.tryAcquire(name, Duration.ZERO)).as("another instance").isEmpty();

		lock.unlock();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		assertThat(lock.isLocked()).as("held until the outermost hold ends").isTrue();
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThatThrownBy(lock::getFencingToken).isInstanceOf(IllegalMonitorStateException.class);
		other.tryAcquire(name, Duration.ZERO).orElseThrow().release();
	}

	@Test
	void aLeaseIsNotReentrant() {
		LockManager manager = instance();
		String name = name("payout");
		try (LockLease lease = manager.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(manager.tryAcquire(name, Duration.ZERO)).isEmpty();
			assertThat(manager.tryAcquire(name, Duration.ofMillis(100))).isEmpty();
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void fencingTokensGrowInTheOrderTheLockIsHeld() throws Exception {
		LockManager first = instance();
		LockManager second = instance();
		String name = name("ledger");
		long previous = 0;
		for (int i = 0; i < 10; i++) {
			LockManager manager = (i % 2 == 0) ? first : second;
			long token;
			if (i % 3 == 0) {
				RedisLock lock = manager.getLock(name);
				assertThat(lock.tryLock(Duration.ofSeconds(5), null)).isTrue();
				token = lock.getFencingToken();
				assertThat(lock.getFencingToken()).isEqualTo(token);
				lock.unlock();
			}
			else {
				try (LockLease lease = manager.tryAcquire(name, Duration.ofSeconds(5)).orElseThrow()) {
					token = lease.fencingToken();
					assertThat(lease.fencingToken()).isEqualTo(token);
				}
			}
			assertThat(token).isGreaterThan(previous);
			previous = token;
		}

		LockLease released = first.tryAcquire(name, Duration.ZERO).orElseThrow();
		long token = released.fencingToken();
		released.release();
		assertThat(released.fencingToken()).as("asked again after release").isEqualTo(token);
		LockLease neverAsked = first.tryAcquire(name, Duration.ZERO).orElseThrow();
		neverAsked.release();
		assertThatIllegalStateException().as("a lease released before it asked").isThrownBy(neverAsked::fencingToken);
	}

	@Test
	void aLeaseThatRunsOutFreesTheLock() throws Exception {
		LockManager holder = instance();
		LockManager other = instance();
		String leased = name("export");
		String locked = name("import");
		LockLease lease = holder.tryAcquire(leased, Duration.ZERO, shortLeaseTime()).orElseThrow();
		RedisLock lock = holder.getLock(locked);
		assertThat(lock.tryLock(Duration.ZERO, shortLeaseTime())).isTrue();
		assertThat(other.tryAcquire(leased, Duration.ZERO)).isEmpty();

		passTime(beyondShortLease());

		assertThat(lease.isValid()).isFalse();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.isLocked()).isFalse();
		try (LockLease taken = other.tryAcquire(leased, Duration.ZERO).orElseThrow()) {
			assertThat(taken.isValid()).isTrue();
		}
		assertThat(other.tryAcquire(locked, Duration.ZERO)).isPresent();
	}

	@Test
	void aLostLeaseIsReportedLostAndReleasesNothing() throws Exception {
		LockManager holder = instance();
		LockManager next = instance();
		LockManager third = instance();
		String leased = name("shipment");
		String relocked = name("refund");
		String unlocked = name("rebate");
		long before = holder.tryAcquire(leased, Duration.ZERO).map((lease) -> {
			long token = lease.fencingToken();
			lease.release();
			return token;
		}).orElseThrow();
		LockLease lease = holder.tryAcquire(leased, Duration.ZERO, shortLeaseTime()).orElseThrow();
		RedisLock lock = holder.getLock(relocked);
		assertThat(lock.tryLock(Duration.ZERO, shortLeaseTime())).isTrue();
		RedisLock other = holder.getLock(unlocked);
		assertThat(other.tryLock(Duration.ZERO, shortLeaseTime())).isTrue();
		passTime(beyondShortLease());
		LockLease newLease = next.tryAcquire(leased, Duration.ZERO).orElseThrow();
		LockLease newLock = next.tryAcquire(relocked, Duration.ZERO).orElseThrow();
		LockLease newOther = next.tryAcquire(unlocked, Duration.ZERO).orElseThrow();

		assertThat(lease.isValid()).isFalse();
		assertThat(newLease.fencingToken()).isGreaterThan(before);
		assertThatIllegalStateException().as("a token for a holder that lost the lock").isThrownBy(lease::fencingToken);
		lease.release();
		assertThat(newLease.isValid()).as("the new owner keeps the lock").isTrue();
		assertThat(third.tryAcquire(leased, Duration.ZERO)).isEmpty();

		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.tryLock(Duration.ZERO, null)).as("re-entering a lost lock acquires afresh").isFalse();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(newLock.isValid()).isTrue();

		assertThatThrownBy(other::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(newOther.isValid()).isTrue();
		assertThat(third.tryAcquire(unlocked, Duration.ZERO)).isEmpty();
		newLease.release();
		newLock.release();
		newOther.release();
	}

	@Test
	void aRenewedLockOutlivesItsLeaseUntilReleasedOrItsInstanceCrashes() throws Exception {
		Duration leaseTime = Duration.ofMillis(600);
		LockManager holder = instance(leaseTime);
		LockManager crashing = instance(leaseTime);
		LockManager other = instance();
		String released = name("nightly");
		String crashed = name("hourly");
		LockLease lease = holder.tryAcquire(released, Duration.ZERO).orElseThrow();
		RedisLock lock = crashing.getLock(crashed);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		crash(crashing);
		assertThat(other.tryAcquire(crashed, Duration.ZERO)).as("held after the crash").isEmpty();

		passTime(leaseTime.multipliedBy(2));

		assertThat(lease.isValid()).as("renewed beyond its lease").isTrue();
		assertThat(other.tryAcquire(released, Duration.ZERO)).isEmpty();
		assertThat(other.tryAcquire(crashed, Duration.ZERO)).as("freed a lease after the crash").isPresent();
		lease.release();
		assertThat(other.tryAcquire(released, Duration.ZERO)).isPresent();
	}

	@Test
	void aLockReleasedWithAMinimumStaysTakenUntilThen() throws Exception {
		LockManager holder = instance();
		LockManager other = instance();
		String name = name("digest");
		String quick = name("quick");
		LockLease past = holder.tryAcquire(quick, Duration.ZERO).orElseThrow();
		LockLease lease = holder.tryAcquire(name, Duration.ZERO).orElseThrow();
		lease.release(shortLeaseTime());
		assertThat(lease.isValid()).isFalse();
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();

		passTime(beyondShortLease());

		assertThat(other.tryAcquire(name, Duration.ZERO)).isPresent();
		past.release(shortLeaseTime());
		assertThat(other.tryAcquire(quick, Duration.ZERO)).as("a minimum already passed frees at once").isPresent();
	}

	@Test
	void forceUnlockFreesALockWhoeverHoldsIt() {
		LockManager holder = instance();
		LockManager operator = instance();
		LockManager other = instance();
		String name = name("stuck");
		holder.tryAcquire(name, Duration.ZERO).orElseThrow();
		RedisLock lock = operator.getLock(name);
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.forceUnlock()).isTrue();
		assertThat(lock.isLocked()).isFalse();
		assertThat(lock.forceUnlock()).isFalse();
		try (LockLease lease = other.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aLeaseHandedOverIsRestoredOnAnotherInstanceWithItsLockAndFencingToken() {
		LockManager holder = instance();
		LockManager restorer = instance();
		LockManager other = instance();
		String name = name("order");
		LockLease lease = holder.tryAcquire(name, Duration.ZERO).orElseThrow();
		long fencingToken = lease.fencingToken();

		LeaseToken token = lease.handOver();

		assertThat(lease.isValid()).isFalse();
		lease.release();
		assertThat(other.tryAcquire(name, Duration.ZERO)).as("a lease handed over releases nothing").isEmpty();
		LockLease restored = restorer.restore(LeaseToken.parse(token.asString()));
		assertThat(restored.isValid()).isTrue();
		assertThat(restored.fencingToken()).isEqualTo(fencingToken);
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();
		restored.release();
		assertThat(restored.isValid()).isFalse();
		try (LockLease next = other.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(next.fencingToken()).isGreaterThan(fencingToken);
		}
	}

	@Test
	void aTokenRestoresOnce() {
		LockManager holder = instance();
		LockManager first = instance();
		LockManager second = instance();
		String name = name("parcel");
		LeaseToken token = holder.tryAcquire(name, Duration.ZERO).orElseThrow().handOver();

		LockLease restored = first.restore(token);
		LockLease again = second.restore(token);

		assertThat(restored.isValid()).isTrue();
		assertThat(again.isValid()).isFalse();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(again::fencingToken);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> again.extend(Duration.ofMinutes(1)));
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(again::handOver);
		again.release();
		assertThat(holder.restore(token).isValid()).as("restored on the instance that handed it over").isFalse();
		assertThat(restored.isValid()).isTrue();
		assertThat(second.tryAcquire(name, Duration.ZERO)).isEmpty();
		restored.release();
		assertThat(second.tryAcquire(name, Duration.ZERO)).isPresent();
	}

	@Test
	void aStaleTokenNeverTouchesTheLockOfANewOwner() throws Exception {
		LockManager holder = instance();
		LockManager next = instance();
		LockManager other = instance();
		String name = name("return");
		LeaseToken token = holder.tryAcquire(name, Duration.ZERO, shortLeaseTime()).orElseThrow().handOver();
		passTime(beyondShortLease());
		LockLease newOwner = next.tryAcquire(name, Duration.ZERO, Duration.ofMinutes(1)).orElseThrow();

		LockLease stale = holder.restore(token);

		assertThat(stale.isValid()).isFalse();
		stale.release();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> stale.extend(Duration.ofMinutes(1)));
		assertThat(newOwner.isValid()).as("the new owner keeps the lock").isTrue();
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();
		newOwner.release();
		assertThat(other.restore(token).isValid()).as("nor restores a lock freed since").isFalse();
	}

	@Test
	void extendKeepsALeaseOfFixedTimePastItsLeaseAndNeverShortensIt() throws Exception {
		LockManager holder = instance();
		LockManager other = instance();
		String name = name("audit");
		LockLease lease = holder.tryAcquire(name, Duration.ZERO, shortLeaseTime()).orElseThrow();

		lease.extend(shortLeaseTime().multipliedBy(4));
		passTime(beyondShortLease());

		assertThat(lease.isValid()).as("extended past its lease").isTrue();
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();
		lease.extend(Duration.ofMillis(1));
		passTime(beyondShortLease());
		assertThat(lease.isValid()).as("not shortened").isTrue();
		assertThat(other.tryAcquire(name, Duration.ZERO)).isEmpty();

		passTime(shortLeaseTime().multipliedBy(2));

		assertThat(lease.isValid()).as("run out once the extension ended").isFalse();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> lease.extend(Duration.ofMinutes(1)));
		try (LockLease taken = other.tryAcquire(name, Duration.ZERO).orElseThrow()) {
			assertThat(taken.isValid()).isTrue();
		}
	}

	@Test
	void releaseAllFreesTheLocksOfThisInstanceOnly() throws Exception {
		LockManager holder = instance();
		LockManager others = instance();
		LockManager third = instance();
		String renewed = name("batch");
		String fixed = name("sweep");
		String threadOwned = name("rollup");
		String handedOver = name("relay");
		String othersLock = name("tally");
		LockLease lease = holder.tryAcquire(renewed, Duration.ZERO).orElseThrow();
		LockLease fixedLease = holder.tryAcquire(fixed, Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		RedisLock lock = holder.getLock(threadOwned);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		LeaseToken token = holder.tryAcquire(handedOver, Duration.ZERO).orElseThrow().handOver();
		LockLease othersLease = others.tryAcquire(othersLock, Duration.ZERO).orElseThrow();

		assertThat(holder.releaseAll()).isEqualTo(3);

		assertThat(lease.isValid()).isFalse();
		assertThat(fixedLease.isValid()).isFalse();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		for (String name : List.of(renewed, fixed, threadOwned)) {
			try (LockLease taken = third.tryAcquire(name, Duration.ZERO).orElseThrow()) {
				assertThat(taken.isValid()).as("%s free for others at once", name).isTrue();
			}
		}
		lease.release();
		assertThat(othersLease.isValid()).as("another instance's lock").isTrue();
		assertThat(third.tryAcquire(othersLock, Duration.ZERO)).isEmpty();
		assertThat(third.tryAcquire(handedOver, Duration.ZERO)).as("a lease handed over is not the instance's").isEmpty();
		LockLease restored = third.restore(token);
		assertThat(restored.isValid()).isTrue();
		assertThat(holder.releaseAll()).isZero();
		restored.release();
		othersLease.release();
	}

	@Test
	void aBlankNameIsRefused() {
		LockManager manager = instance();
		assertThatIllegalArgumentException().isThrownBy(() -> manager.getLock(" "));
		assertThatIllegalArgumentException().isThrownBy(() -> manager.tryAcquire("", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> manager.tryAcquire(name("ok"), Duration.ofMillis(-1)));
	}

}
