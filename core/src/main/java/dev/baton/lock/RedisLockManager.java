package dev.baton.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * The {@link LockManager} on Redis.
 *
 * <p>Acquiring is one script call: {@code SET NX PX} on {@code <prefix>{<name>}} and, on success,
 * a fencing token made from the Redis server's clock. Releasing is one compare-and-delete script
 * that only the owner's unique id passes. Waiting threads are woken by a release, published only
 * when someone waits, or otherwise try again when the holder's lease runs out; threads of this JVM
 * waiting for one lock take turns, so only one of them asks Redis at a time, and a holder in this
 * JVM hands the lock straight to the next of them in one script. Locks taken without
 * a lease time are renewed by a watchdog every third of the lease, in one pipeline for all of
 * them.
 *
 * <p>Create one per application with {@link #builder(RedisConnectionFactory)} and {@link #close()}
 * it on shutdown: closing releases every lock it holds.
 */
public final class RedisLockManager implements LockManager, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockManager.class);

	/**
	 * How long the last fencing token of a name outlives its lock. Tokens stay strictly
	 * increasing across that gap even if the Redis server's clock steps back.
	 */
	static final Duration FENCE_MEMORY = Duration.ofMinutes(10);

	private final LockCommands commands;

	private final String keyPrefix;

	private final Duration leaseTime;

	private final Consumer<LockLostEvent> lockLostListener;

	private final LockMetrics metrics;

	/** Start of this manager's owner ids: unique, so that no other instance can pass for an owner. */
	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong acquisitions = new AtomicLong();

	private final Set<RedisLockLease> held = ConcurrentHashMap.newKeySet();

	private final ThreadHolds threadHolds = new ThreadHolds();

	private final LockWaiters waiters;

	private final LockWatchdog watchdog;

	private final AtomicBoolean closed = new AtomicBoolean();

	private RedisLockManager(Builder builder) {
		this.commands = new LockCommands(builder.connectionFactory);
		this.keyPrefix = builder.keyPrefix;
		this.leaseTime = builder.leaseTime;
		this.lockLostListener = builder.lockLostListener;
		this.metrics = (builder.meterRegistry != null) ? MicrometerLockMetrics.of(builder.meterRegistry)
				: LockMetrics.NONE;
		this.metrics.activeLocks(this.held::size);
		this.waiters = new LockWaiters(builder.connectionFactory, this.commands, this.ownerPrefix);
		this.watchdog = new LockWatchdog(this.commands, this.leaseTime,
				() -> this.held.stream().filter(RedisLockLease::isRenewed).toList(), this::lost);
	}

	/**
	 * Start building a lock manager on the given connection.
	 * @param connectionFactory the Redis connection
	 * @return a builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(connectionFactory);
	}

	@Override
	public RedisLock getLock(String name) {
		Assert.hasText(name, "Lock name must not be blank");
		return new ThreadOwnedRedisLock(this, this.threadHolds, name);
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

	/**
	 * Acquires the lock, waiting up to the request's wait time ({@code Long.MAX_VALUE} nanoseconds:
	 * for ever).
	 * @return the lease, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted while waiting and {@code interruptible}
	 */
	@Nullable RedisLockLease acquire(LockRequest request, boolean interruptible) throws InterruptedException {
		if (this.closed.get()) {
			throw new IllegalStateException("Lock manager is closed; cannot acquire '" + request.name() + "'");
		}
		long start = System.nanoTime();
		LockKeys keys = LockKeys.of(this.keyPrefix, request.name());
		long waitNanos = request.waitTime().toNanos();
		try {
			Attempt attempt = new Attempt(request, keys, waitNanos);
			// A newcomer that may wait gets in line behind this JVM's waiters instead of barging.
			boolean inLine = waitNanos > 0 && this.waiters.isAwaited(keys.channel());
			RedisLockLease lease = inLine ? null : attempt.attempt();
			if (lease == null && waitNanos > 0) {
				lease = this.waiters.await(keys.channel(), waitNanos - (System.nanoTime() - start), interruptible,
						attempt);
			}
			this.metrics.acquisition(request.group(),
					(lease != null) ? LockMetrics.Outcome.ACQUIRED : LockMetrics.Outcome.TIMEOUT,
					System.nanoTime() - start);
			return lease;
		}
		catch (RuntimeException ex) {
			this.metrics.acquisition(request.group(), LockMetrics.Outcome.ERROR, System.nanoTime() - start);
			throw ex;
		}
	}

	/**
	 * Releases a lease: hands its lock to a waiter of this JVM, or deletes it in Redis.
	 * @return {@code false} if its lock had expired or been taken
	 */
	boolean release(RedisLockLease lease) {
		forget(lease);
		boolean released = this.closed.get() ? this.waiters.releaseInRedis(lease.keys(), lease.owner())
				: this.waiters.release(lease);
		if (!released) {
			reportLost(lease, "its lease ran out before it was released");
		}
		return released;
	}

	/** Stops renewing a lease and lets its lock expire after {@code keep}. */
	void keep(RedisLockLease lease, Duration keep) {
		forget(lease);
		boolean kept = this.commands.keep(lease.keys(), lease.owner(), Math.max(keep.toMillis(), 1));
		// Waiters of this JVM may wait for a hand-off: they learn the lock's new expiry from Redis.
		this.waiters.released(lease.keys().channel());
		if (!kept) {
			reportLost(lease, "its lease ran out before it was released");
		}
	}

	boolean isLocked(String name) {
		return this.commands.exists(LockKeys.of(this.keyPrefix, name));
	}

	boolean forceUnlock(String name) {
		return this.waiters.releaseInRedis(LockKeys.of(this.keyPrefix, name), "");
	}

	private String nextOwner() {
		return this.ownerPrefix + this.acquisitions.incrementAndGet();
	}

	private void forget(RedisLockLease lease) {
		if (this.held.remove(lease)) {
			this.metrics.held(lease.group(), lease.heldNanos());
		}
	}

	private void lost(RedisLockLease lease) {
		if (lease.markLost()) {
			forget(lease);
			this.waiters.released(lease.keys().channel());
			reportLost(lease, "the watchdog found it expired or taken");
		}
	}

	private void reportLost(RedisLockLease lease, String how) {
		logger.warn("Lost lock '" + lease.name() + "' (fencing token " + lease.fencingToken() + "): " + how);
		this.metrics.lost(lease.group());
		this.lockLostListener.accept(new LockLostEvent(lease.name(), lease.group(), lease.fencingToken()));
	}

	/** Stops the watchdog and releases every lock this manager holds. Idempotent. */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		this.watchdog.close();
		for (RedisLockLease lease : List.copyOf(this.held)) {
			try {
				lease.release();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release " + lease + " on close; it expires with its lease", ex);
			}
		}
		this.waiters.close();
	}

	/** Attempts to take a lock, remembering when to try again. */
	private final class Attempt implements LockWaiters.Attempt {

		private final LockRequest request;

		private final LockKeys keys;

		private final long waitNanos;

		private long retryInMillis;

		Attempt(LockRequest request, LockKeys keys, long waitNanos) {
			this.request = request;
			this.keys = keys;
			this.waitNanos = waitNanos;
		}

		@Override
		public @Nullable RedisLockLease attempt() {
			long leaseMillis = leaseMillis();
			long waitingMillis = (this.waitNanos > 0) ? LockWaiters.MAX_WAIT_STEP_MILLIS * 2 : 0;
			String owner = nextOwner();
			long result = RedisLockManager.this.commands.acquire(this.keys, owner, leaseMillis,
					leaseMillis + FENCE_MEMORY.toMillis(), waitingMillis);
			if (result <= 0) {
				this.retryInMillis = -result;
				return null;
			}
			return granted(owner, result);
		}

		@Override
		public @Nullable RedisLockLease takeOver(RedisLockLease holder) {
			long leaseMillis = leaseMillis();
			String owner = nextOwner();
			long token = RedisLockManager.this.commands.handOff(this.keys, holder.owner(), owner, leaseMillis,
					leaseMillis + FENCE_MEMORY.toMillis());
			return (token > 0) ? granted(owner, token) : null;
		}

		private long leaseMillis() {
			Duration requested = this.request.leaseTime();
			return Math.max(((requested != null) ? requested : RedisLockManager.this.leaseTime).toMillis(), 1);
		}

		/** The lease of an acquisition that Redis granted to {@code owner}. */
		private RedisLockLease granted(String owner, long fencingToken) {
			RedisLockLease lease = new RedisLockLease(RedisLockManager.this, this.request, this.keys, owner,
					fencingToken);
			RedisLockManager.this.held.add(lease);
			return lease;
		}

		@Override
		public long retryInMillis() {
			return this.retryInMillis;
		}

	}

	/** Builds a {@link RedisLockManager}. */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private String keyPrefix = "baton:lock:";

		private Duration leaseTime = Duration.ofSeconds(30);

		private Consumer<LockLostEvent> lockLostListener = (event) -> {
		};

		private @Nullable MeterRegistry meterRegistry;

		private Builder(RedisConnectionFactory connectionFactory) {
			Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
			this.connectionFactory = connectionFactory;
		}

		/**
		 * Prefix of every lock key. The default is {@code baton:lock:}.
		 * @param keyPrefix the prefix
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			Assert.notNull(keyPrefix, "Key prefix must not be null");
			Assert.isTrue(!keyPrefix.contains("{") && !keyPrefix.contains("}"),
					() -> "Key prefix '" + keyPrefix + "' must not contain braces: Baton adds the hash tag");
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Lease of locks taken without a lease time, renewed every third of it while held. The
		 * default is 30 seconds.
		 * @param leaseTime the watchdog lease
		 * @return this builder
		 */
		public Builder leaseTime(Duration leaseTime) {
			Assert.isTrue(leaseTime != null && leaseTime.toMillis() >= 3,
					() -> "Lease time must be at least 3 ms, was " + leaseTime);
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Called when the watchdog finds a held lock expired or taken by someone else.
		 * @param lockLostListener the listener, e.g. an application event publisher
		 * @return this builder
		 */
		public Builder lockLostListener(Consumer<LockLostEvent> lockLostListener) {
			Assert.notNull(lockLostListener, "Lock lost listener must not be null");
			this.lockLostListener = lockLostListener;
			return this;
		}

		/**
		 * Record meters {@code baton.lock.*} in this registry. Optional.
		 * @param meterRegistry the registry
		 * @return this builder
		 */
		public Builder meterRegistry(MeterRegistry meterRegistry) {
			this.meterRegistry = meterRegistry;
			return this;
		}

		/**
		 * Build the lock manager; it starts its watchdog thread.
		 * @return the lock manager
		 */
		public RedisLockManager build() {
			return new RedisLockManager(this);
		}

	}

}
