package dev.baton.test.lock;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockManagerStatus;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import dev.baton.lock.spi.LockBackend;
import dev.baton.lock.spi.ThreadOwnedLock;
import dev.baton.lock.spi.TokenLeases;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockManager} that keeps its locks in memory, for fast unit tests of code that takes
 * Baton locks, without Redis. It passes the same
 * {@link dev.baton.test.contract.LockManagerContractTests} as Baton's Redis lock manager: mutual
 * exclusion, reentrant thread-owned {@link RedisLock}s, {@link LockLease}s that any thread
 * releases, fencing tokens that grow per name in the order the lock is held (issued when first
 * asked for, only while the lease holds the lock), leases that run out and are then reported
 * lost, {@code release(lockAtLeastFor)}, {@code forceUnlock()}, {@code holderOf}, and locks that cross
 * instances: {@link LockLease#handOver()}, {@link #restore(LeaseToken)},
 * {@link LockLease#extend(Duration)} and {@link #releaseAll()}. As a {@link TokenLeases} it lets
 * {@link dev.baton.test.queue.InMemoryDelayQueues} hand its locks to delayed tasks
 * ({@code DelayQueue.schedule(..., LockLease)}), as Baton's Redis lock manager does for Redis
 * queues.
 *
 * <pre class="code">
 * AtomicReference&lt;Instant&gt; now = new AtomicReference&lt;&gt;(Instant.parse("2026-01-01T00:00:00Z"));
 * InMemoryLockManager locks = new InMemoryLockManager(now::get);
 * LockLease lease = locks.tryAcquire("report", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
 * now.set(now.get().plus(Duration.ofMinutes(5))); // the lease ran out
 * assertThat(lease.isValid()).isFalse();
 * </pre>
 *
 * <p><strong>Time.</strong> Lease times are measured on the given {@link InstantSource}: a lease
 * runs out only as that clock moves. On a clock that the test moves by hand, leases never run
 * out by themselves; with {@link InstantSource#system()} they run out in real time. Leases taken
 * without a lease time are renewed for as long as their manager is open, as the watchdog renews
 * them, and never run out; {@link #close()} stops renewing them, so that they run out one
 * watchdog lease time later, as the locks of a crashed instance do. Wait times are real time
 * (a waiter looks at the clock again every 10 ms, so a lease that runs out because the clock
 * moved frees the lock for it).
 *
 * <p><strong>Instances.</strong> One manager is one instance of the application. Managers made
 * with {@link #anotherInstance} share their locks with this one, so that a test can play several
 * instances; each counts its own reentrant holds, as separate JVMs do. A lease handed over on one
 * is restored on any of them, from the token or its {@linkplain LeaseToken#asString() string}.
 *
 * <p><strong>Status.</strong> As a {@link LockManagerStatus} it lists the locks its leases hold
 * (a renewed one valid for the lease time), answers {@link #ping()} at once, never reports a
 * renewal or its failure, and completes {@link #allReleased()} within 10 ms of its last lease
 * being released or running out on the clock, so that Spring Boot's health contributor,
 * actuator endpoint and graceful shutdown work with it as with the Redis lock manager.
 *
 * <p><strong>Not simulated:</strong> other processes (the locks live in this JVM only), Redis
 * failures, timeouts and failover (no call ever fails, and no lease is lost but by running out,
 * {@code forceUnlock()}, {@code releaseAll()} or {@code close()}), the timing of lease renewal
 * (renewed leases simply do not run out), fair waiting and hand-off between waiting threads
 * (waiters race for a freed lock), lock-lost events and metrics (a lease lost to
 * {@code releaseAll()} is only no longer valid), and the name length and key rules of Redis keys
 * (names are only checked to be non-blank and free of control characters).
 */
public final class InMemoryLockManager implements LockManager, LockManagerStatus, TokenLeases, AutoCloseable {

	/** The lease time of locks renewed by the watchdog when none is given: 30 s, as Baton's default. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** How often {@link #allReleased()} looks again: leases that run out on the clock tell nobody. */
	private static final Executor RECHECK = CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS,
			Runnable::run);

	private final LockTable table;

	private final Duration leaseTime;

	private final String instanceName;

	private final ThreadOwnedLock.Holds<InMemoryLease> holds = new ThreadOwnedLock.Holds<>();

	/** What the thread-owned locks of {@link #getLock} ask of this manager. */
	private final LockBackend<InMemoryLease> lockBackend = new LockBackend<>() {

		@Override
		public @Nullable InMemoryLease acquire(LockRequest request, boolean interruptible)
				throws InterruptedException {
			return InMemoryLockManager.this.acquire(request, interruptible);
		}

		@Override
		public boolean releaseOwned(InMemoryLease lease) {
			return lease.releaseOwned();
		}

		@Override
		public boolean isLocked(String name) {
			return InMemoryLockManager.this.table.isLocked(name);
		}

		@Override
		public boolean forceUnlock(String name) {
			return InMemoryLockManager.this.table.forceUnlock(name);
		}

	};

	private final AtomicBoolean closed = new AtomicBoolean();

	/** Acquisitions under way, which may still add a lease. */
	private final AtomicInteger acquiring = new AtomicInteger();

	/** A lock manager whose leases run out in real time. */
	public InMemoryLockManager() {
		this(InstantSource.system());
	}

	/**
	 * A lock manager whose leases run out as the given clock moves.
	 * @param clock the clock that lease times are measured on, such as a {@link java.time.Clock}
	 * or an {@code InstantSource} lambda over an instant that the test moves
	 */
	public InMemoryLockManager(InstantSource clock) {
		this(clock, DEFAULT_LEASE_TIME);
	}

	/**
	 * A lock manager whose leases run out as the given clock moves.
	 * @param clock the clock that lease times are measured on
	 * @param leaseTime how long a lock taken without a lease time stays held after this manager
	 * is {@linkplain #close() closed}, as {@code baton.lock.lease-time} sets for Redis
	 */
	public InMemoryLockManager(InstantSource clock, Duration leaseTime) {
		this(new LockTable(requireNonNull(clock, "Clock")), leaseTime);
	}

	private InMemoryLockManager(LockTable table, Duration leaseTime) {
		requireNonNull(leaseTime, "Lease time");
		if (leaseTime.isNegative() || leaseTime.isZero()) {
			throw new IllegalArgumentException("Lease time must be positive, not " + leaseTime);
		}
		this.table = table;
		this.leaseTime = leaseTime;
		this.instanceName = table.nextInstanceName();
	}

	private static <T> T requireNonNull(@Nullable T value, String what) {
		if (value == null) {
			throw new IllegalArgumentException(what + " must not be null");
		}
		return value;
	}

	/**
	 * Another instance of the application: a manager over the same locks and clock, with the
	 * same lease time and reentrant holds of its own.
	 * @return the new manager
	 */
	public InMemoryLockManager anotherInstance() {
		return anotherInstance(this.leaseTime);
	}

	/**
	 * Another instance of the application with its own lease time: a manager over the same locks
	 * and clock, with reentrant holds of its own.
	 * @param leaseTime how long its locks taken without a lease time stay held after it is closed
	 * @return the new manager
	 */
	public InMemoryLockManager anotherInstance(Duration leaseTime) {
		return new InMemoryLockManager(this.table, leaseTime);
	}

	/** The name {@link #holderOf} gives for the locks this manager holds: {@code in-memory-1}, 2, … */
	public String instanceName() {
		return this.instanceName;
	}

	@Override
	public RedisLock getLock(String name, String group) {
		checkName(name);
		return new ThreadOwnedLock<>(this.lockBackend, this.holds, name, group);
	}

	@Override
	public Optional<LockLease> tryAcquire(LockRequest request) {
		try {
			return Optional.ofNullable(acquire(request, false));
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Nullable InMemoryLease acquire(LockRequest request, boolean interruptible) throws InterruptedException {
		checkName(request.name());
		this.acquiring.incrementAndGet();
		try {
			return this.table.acquire(this, request, interruptible);
		}
		finally {
			this.acquiring.decrementAndGet();
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>The restored lease keeps the lock's expiry on the clock; one without a lease time is then
	 * renewed while this manager is open.
	 * @throws IllegalStateException if this manager is closed
	 */
	@Override
	public LockLease restore(LeaseToken token) {
		requireNonNull(token, "Lease token");
		checkName(token.name());
		return this.table.restore(this, token);
	}

	/**
	 * {@inheritDoc}
	 * <p>Lock-lost events are not simulated: each lease's holder learns it from
	 * {@code isValid()}, a thread-owned lock's from {@code isHeldByCurrentThread()}.
	 */
	@Override
	public int releaseAll() {
		return this.table.releaseAll(this);
	}

	/**
	 * {@inheritDoc}
	 * <p>On the clock of the lock manager. A lock found lost is not reported otherwise: lock-lost
	 * events are not simulated.
	 */
	@Override
	public boolean extend(LeaseToken token, Duration atLeast) {
		requireNonNull(token, "Lease token");
		LockRequest.checkExtension(token.name(), atLeast);
		return this.table.extend(token, atLeast);
	}

	@Override
	public Duration leaseOf(LeaseToken token) {
		requireNonNull(token, "Lease token");
		return (token.leaseTime() != null) ? token.leaseTime() : this.leaseTime;
	}

	@Override
	public boolean release(LeaseToken token) {
		requireNonNull(token, "Lease token");
		return this.table.release(token);
	}

	/**
	 * {@inheritDoc}
	 * @throws IllegalArgumentException if the lease was not granted by a manager over the same
	 * locks as this one, or is of another lock than the token
	 */
	@Override
	public boolean takeBack(LockLease lease, LeaseToken token) {
		requireNonNull(token, "Lease token");
		if (!(lease instanceof InMemoryLease inMemory) || inMemory.manager().table() != this.table) {
			throw new IllegalArgumentException(lease + " was not granted by this lock manager or another instance of it");
		}
		if (!lease.name().equals(token.name())) {
			throw new IllegalArgumentException("Lease token of lock '" + token.name()
					+ "' was not handed over by the lease of lock '" + lease.name() + "'");
		}
		return this.table.takeBack(inMemory, token);
	}

	@Override
	public Optional<String> holderOf(String name) {
		checkName(name);
		return Optional.ofNullable(this.table.holderOf(name));
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.table.heldBy(this, this.leaseTime);
	}

	/**
	 * Answers at once: the locks are in memory.
	 * @return {@link Duration#ZERO}
	 */
	@Override
	public Duration ping() {
		return Duration.ZERO;
	}

	@Override
	public CompletableFuture<Void> allReleased() {
		CompletableFuture<Void> released = new CompletableFuture<>();
		completeWhenReleased(released);
		return released;
	}

	private void completeWhenReleased(CompletableFuture<Void> released) {
		if (released.isDone()) {
			return;
		}
		// Acquiring is read before the leases: an acquisition adds its lease before it stops counting.
		if (this.acquiring.get() == 0 && heldLocks().isEmpty()) {
			released.complete(null);
		}
		else {
			RECHECK.execute(() -> completeWhenReleased(released));
		}
	}

	/**
	 * Stops renewing this manager's leases without releasing them, as a crashed instance does:
	 * those taken without a lease time run out one lease time from now on the clock, the others
	 * when their own lease time ends. Acquiring through a closed manager fails. Idempotent.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.table.stopRenewing(this, this.leaseTime);
		}
	}

	/** How long its renewed locks stay held once renewals stop. */
	Duration leaseTime() {
		return this.leaseTime;
	}

	LockTable table() {
		return this.table;
	}

	boolean isOpen() {
		return !this.closed.get();
	}

	void requireOpen(String name) {
		if (this.closed.get()) {
			throw new IllegalStateException("Lock manager is closed; cannot acquire '" + name + "'");
		}
	}

	private static void checkName(@Nullable String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Lock name must not be blank");
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
				throw new IllegalArgumentException("Lock name must not contain control characters or line separators: '"
						+ name.replaceAll("\\p{Cntrl}|\u2028|\u2029", "?") + "'");
			}
		}
	}

	@Override
	public String toString() {
		return "InMemoryLockManager[" + this.instanceName + "]";
	}

}
