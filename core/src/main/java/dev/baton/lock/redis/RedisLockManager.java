package dev.baton.lock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.Names;
import dev.baton.internal.ObservationSettings;
import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.HeldLock;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockManagerStatus;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLock;
import dev.baton.lock.spi.LockBackend;
import dev.baton.lock.spi.ThreadOwnedLock;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.observation.DefaultLockAcquisitionObservationConvention;
import dev.baton.observation.LockAcquisitionObservationConvention;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
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
 * JVM hands the lock straight to the next of them: without a Redis call while both renew their
 * leases, at least half a lease is left and a fencing token reserved with the acquisition is free,
 * else in one script. Locks taken without
 * a lease time are renewed by a watchdog every third of the lease, in one pipeline for all of
 * them.
 *
 * <p>Every Redis call is bounded by the lock command timeout ({@link Builder#commandTimeout}),
 * whatever the connection's own timeout, and fails with a {@link LockUnavailableException}. A
 * lease whose renewals do not reach Redis in time is lost once its lease time has passed since
 * the last acknowledged renewal was sent: {@link LockLease#isValid()} turns false and a
 * {@link LockLostEvent} is published, also while Redis is unreachable.
 *
 * <p>Create one per application with {@link #builder(RedisConnectionFactory)} and {@link #close()}
 * it on shutdown, once the code that holds its locks has returned ({@link #allReleased()}).
 *
 * <p>The manager checks names, refuses work once closed and leaves the rest to what it is made
 * of: {@link LockAcquisitions}, {@link LeaseReleases}, {@link LeaseTransfers}, all keeping their
 * books in one {@link LeaseBookkeeping}, and the {@link LockWatchdog}.
 */
public final class RedisLockManager implements LockManager, LockManagerStatus, TokenLeases, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockManager.class);

	private final LockCommands commands;

	private final String keyPrefix;

	private final int maxNameLength;

	private final ThreadOwnedLock.Holds<RedisLockLease> threadHolds = new ThreadOwnedLock.Holds<>();

	/** What the thread-owned locks of {@link #getLock} ask of this manager. */
	private final LockBackend<RedisLockLease> lockBackend = new LockBackend<>() {

		@Override
		public @Nullable RedisLockLease acquire(LockRequest request, boolean interruptible)
				throws InterruptedException {
			return RedisLockManager.this.acquire(request, interruptible);
		}

		@Override
		public boolean releaseOwned(RedisLockLease lease) {
			return lease.releaseOwned();
		}

		@Override
		public boolean isLocked(String name) {
			return RedisLockManager.this.isLocked(name);
		}

		@Override
		public boolean forceUnlock(String name) {
			return RedisLockManager.this.forceUnlock(name);
		}

	};

	private final LockWaiters waiters;

	private final LeaseBookkeeping leases;

	private final LockAcquisitions acquisitions;

	private final LeaseReleases releases;

	private final LeaseTransfers transfers;

	private final LockWatchdog watchdog;

	private final AtomicBoolean closed = new AtomicBoolean();

	private RedisLockManager(Builder builder) {
		LockMetrics metrics = (builder.meterRegistry != null) ? MicrometerLockMetrics.of(builder.meterRegistry)
				: LockMetrics.NONE;
		BatonThreads threads = BatonThreads.of(builder.threadFactory);
		this.commands = new LockCommands(threads, builder.connectionFactory, builder.commandTimeout, builder.replicas,
				builder.replicaTimeout, metrics);
		this.keyPrefix = builder.keyPrefix;
		String instanceName = (builder.instanceName != null) ? builder.instanceName : InstanceNames.local();
		String ownerPrefix = InstanceNames.ownerPrefix(instanceName);
		this.maxNameLength = builder.maxNameLength;
		MetricGroups metricGroups = new MetricGroups(builder.maxMetricGroups);
		ObservationSettings<LockAcquisitionObservationConvention> observations = new ObservationSettings<>(
				ObservationSettings.registry(builder.observationRegistry, builder.meterRegistry),
				builder.acquisitionConvention);
		this.waiters = new LockWaiters(threads, builder.connectionFactory, this.commands, ownerPrefix, this.keyPrefix);
		this.leases = new LeaseBookkeeping(threads, this.commands, this.waiters, metrics, metricGroups,
				builder.lockLostListener);
		this.acquisitions = new LockAcquisitions(this, this.commands, this.waiters, this.leases, metrics, metricGroups,
				observations, this.keyPrefix, builder.leaseTime, ownerPrefix);
		this.releases = new LeaseReleases(threads, this.leases, this.commands, this.waiters, metrics, metricGroups,
				this.closed::get);
		this.transfers = new LeaseTransfers(this, this.leases, this.commands, this.waiters, this.keyPrefix,
				builder.leaseTime, instanceName);
		this.watchdog = new LockWatchdog(threads, this.commands, builder.leaseTime, this.leases.held()::leases,
				this.leases::lost, this.leases::forget);
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
	public RedisLock getLock(String name, String group) {
		checkName(name);
		return new ThreadOwnedLock<>(this.lockBackend, this.threadHolds, name, group);
	}

	private void checkName(String name) {
		Assert.hasText(name, "Lock name must not be blank");
		Names.requireNoControlCharacters("Lock name", name);
		Assert.isTrue(name.length() <= this.maxNameLength, () -> "Lock name of " + name.length()
				+ " characters is longer than the maximum of " + this.maxNameLength + " (baton.lock.max-name-length): '"
				+ name.substring(0, 64) + "...'");
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
		checkName(request.name());
		HeldLeases held = this.leases.held();
		held.acquiring();
		try {
			requireOpen(request.name());
			RedisLockLease lease = this.acquisitions.acquire(request, interruptible);
			if (lease != null) {
				releaseIfClosed(lease);
			}
			return lease;
		}
		finally {
			held.acquired();
		}
	}

	private void requireOpen(String name) {
		if (this.closed.get()) {
			throw new IllegalStateException("Lock manager is closed; cannot acquire '" + name + "'");
		}
	}

	/** Releases and refuses a lease granted or restored while this manager closed. */
	private void releaseIfClosed(RedisLockLease lease) {
		if (this.closed.get()) {
			// Closed meanwhile: nothing would renew or release this lease, so it must not be held.
			lease.release();
			requireOpen(lease.name());
		}
	}

	// What the leases this manager granted ask of it, which the parts concerned do.

	boolean release(RedisLockLease lease) {
		return this.releases.release(lease);
	}

	void keep(RedisLockLease lease, Duration keep) {
		this.releases.keep(lease, keep);
	}

	void extend(RedisLockLease lease, Duration leaseTime) {
		this.transfers.extend(lease, leaseTime);
	}

	LeaseToken handOver(RedisLockLease lease) {
		return this.transfers.handOver(lease);
	}

	long issueToken(RedisLockLease lease) {
		return this.acquisitions.issueToken(lease);
	}

	@Override
	public LockLease restore(LeaseToken token) {
		Assert.notNull(token, "Lease token must not be null");
		checkName(token.name());
		requireOpen(token.name());
		LockLease lease = this.transfers.restore(token, this.acquisitions.nextOwner());
		if (lease instanceof RedisLockLease restored) {
			releaseIfClosed(restored);
		}
		return lease;
	}

	@Override
	public boolean extend(LeaseToken token, Duration atLeast) {
		Assert.notNull(token, "Lease token must not be null");
		checkName(token.name());
		return this.transfers.extend(token, atLeast);
	}

	@Override
	public Duration leaseOf(LeaseToken token) {
		return this.transfers.leaseOf(token);
	}

	@Override
	public boolean release(LeaseToken token) {
		Assert.notNull(token, "Lease token must not be null");
		checkName(token.name());
		return this.transfers.release(token);
	}

	@Override
	public boolean takeBack(LockLease lease, LeaseToken token) {
		if (!(lease instanceof RedisLockLease redisLease) || !redisLease.isOf(this)) {
			throw new IllegalArgumentException(lease + " was not granted by this lock manager");
		}
		return this.transfers.takeBack(redisLease, token);
	}

	@Override
	public int releaseAll() {
		return this.releases.releaseAll();
	}

	@Override
	public Optional<String> holderOf(String name) {
		checkName(name);
		try {
			return Optional.ofNullable(InstanceNames.inOwner(this.commands.holder(LockKeys.of(this.keyPrefix, name))));
		}
		catch (RuntimeException ex) {
			// Asked to explain a lock not acquired: not knowing who holds it must not replace that answer.
			logger.debug("Could not read the holder of lock '" + name + "': " + ex.getMessage());
			return Optional.empty();
		}
	}

	boolean isLocked(String name) {
		return this.commands.exists(LockKeys.of(this.keyPrefix, name));
	}

	boolean forceUnlock(String name) {
		return this.waiters.releaseInRedis(LockKeys.of(this.keyPrefix, name), "").deleted();
	}

	@Override
	public CompletableFuture<Void> allReleased() {
		return this.leases.held().allReleased();
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.leases.held().leases().stream().map(RedisLockLease::describe).toList();
	}

	@Override
	public int heldCount() {
		return this.leases.held().size();
	}

	/**
	 * Follows the primary switches that a watch reports (Redis Sentinel): lock calls wait while the
	 * sentinels promote a replica (within the command timeout), and after each switch the releases
	 * of the last seconds are sent again, owner checked, since the new primary may still hold
	 * locks whose release the old primary took before it was demoted and lost. Releases are noted
	 * from this call on.
	 * @param watch the watch of the connection factory this manager uses
	 */
	public void followPrimarySwitches(PrimarySwitchWatch watch) {
		this.commands.followPrimary(watch.hold());
		watch.onSwitch(this::primarySwitched);
	}

	private void primarySwitched() {
		this.commands.closeReplicaConnections();
		int repeated = this.commands.repeatRecentReleases();
		logger.info("Redis switched primary: sent the " + repeated + " lock release(s) of the last "
				+ TimeUnit.NANOSECONDS.toSeconds(RecentReleases.KEPT_NANOS)
				+ " s again, owner checked, as the new primary may not have them");
	}

	/**
	 * Asks Redis whether it answers, within the lock command timeout.
	 * @return the round trip time
	 * @throws LockUnavailableException if Redis does not answer in time
	 */
	@Override
	public Duration ping() {
		long start = System.nanoTime();
		this.commands.exists(LockKeys.of(this.keyPrefix, "baton:ping"));
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/** When the watchdog last renewed every lease it sent, or {@code null} if it never has. */
	@Override
	public @Nullable Instant lastRenewal() {
		return this.watchdog.lastRenewal();
	}

	/** Why the watchdog's last renewal failed, or {@code null} if it succeeded or none was due. */
	@Override
	public @Nullable Throwable lastRenewalFailure() {
		return this.watchdog.lastFailure();
	}

	/**
	 * Stops the watchdog and the waiters' subscription. Leases still held are not deleted, since
	 * their holders may still run: they expire with their lease (a holder that returns later still
	 * releases its lock while Redis is reachable). Idempotent.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		this.watchdog.close();
		HeldLeases held = this.leases.held();
		if (!held.isEmpty()) {
			logger.info("Lock manager closed while " + held.size() + " lock(s) were still held by running code; "
					+ "they expire with their lease: " + held);
		}
		this.leases.close();
		this.releases.close();
		this.waiters.close();
		this.commands.close();
	}

	/** Builds a {@link RedisLockManager}. */
	public static final class Builder {

		/** The default of {@link #keyPrefix(String)}. */
		public static final String DEFAULT_KEY_PREFIX = "baton:lock:";

		/** The default of {@link #leaseTime(Duration)}. */
		public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

		/** The default of {@link #commandTimeout(Duration)}. */
		public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

		/** The default of {@link #maxNameLength(int)}. */
		public static final int DEFAULT_MAX_NAME_LENGTH = 1024;

		/** The default of {@link #maxMetricGroups(int)}. */
		public static final int DEFAULT_MAX_METRIC_GROUPS = 100;

		/** The default timeout of {@link #replicaAcknowledgement(int, Duration)}. */
		public static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(500);

		private final RedisConnectionFactory connectionFactory;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Duration leaseTime = DEFAULT_LEASE_TIME;

		private Consumer<LockLostEvent> lockLostListener = (event) -> {
		};

		private @Nullable MeterRegistry meterRegistry;

		private @Nullable ObservationRegistry observationRegistry;

		private @Nullable LockAcquisitionObservationConvention acquisitionConvention;

		private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;

		private int maxNameLength = DEFAULT_MAX_NAME_LENGTH;

		private int maxMetricGroups = DEFAULT_MAX_METRIC_GROUPS;

		private int replicas;

		private Duration replicaTimeout = DEFAULT_REPLICA_TIMEOUT;

		private @Nullable String instanceName;

		private @Nullable ThreadFactory threadFactory;

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
			LockRequest.checkLeaseTime(leaseTime, "Lease time");
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Called when a held lock is found expired or taken by someone else, or when its lease ran
		 * out with no renewal reaching Redis. Runs on a thread of its own, never the watchdog's.
		 * @param lockLostListener the listener, e.g. an application event publisher
		 * @return this builder
		 */
		public Builder lockLostListener(Consumer<LockLostEvent> lockLostListener) {
			Assert.notNull(lockLostListener, "Lock lost listener must not be null");
			this.lockLostListener = lockLostListener;
			return this;
		}

		/**
		 * Record meters {@code baton.lock.*} in this registry; the {@code baton.lock.acquire}
		 * timer too, unless an {@link #observationRegistry} is set. Optional.
		 * @param meterRegistry the registry
		 * @return this builder
		 */
		public Builder meterRegistry(MeterRegistry meterRegistry) {
			this.meterRegistry = meterRegistry;
			return this;
		}

		/**
		 * Observe acquisitions in this registry: the {@code baton.lock.acquire} timer comes from
		 * its meter handler, and with tracing each acquisition is a span. Optional.
		 * @param observationRegistry the registry
		 * @return this builder
		 */
		public Builder observationRegistry(ObservationRegistry observationRegistry) {
			Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
			this.observationRegistry = observationRegistry;
			return this;
		}

		/**
		 * Name and tag the observations of acquisitions with this convention instead of
		 * {@link DefaultLockAcquisitionObservationConvention}.
		 * @param convention the convention
		 * @return this builder
		 */
		public Builder acquisitionObservationConvention(LockAcquisitionObservationConvention convention) {
			Assert.notNull(convention, "Convention must not be null");
			this.acquisitionConvention = convention;
			return this;
		}

		/**
		 * How long a lock command may wait for Redis before it fails with a
		 * {@link LockUnavailableException}, whatever the connection's command timeout. Renewals
		 * use at most half the renewal period. The default is 2 seconds.
		 * @param commandTimeout the timeout, positive
		 * @return this builder
		 */
		public Builder commandTimeout(Duration commandTimeout) {
			Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() >= 1,
					() -> "Lock command timeout must be at least 1 ms, was " + commandTimeout);
			this.commandTimeout = commandTimeout;
			return this;
		}

		/**
		 * The longest lock name accepted; longer names are refused with an
		 * {@link IllegalArgumentException}. The default is 1024 characters.
		 * @param maxNameLength the maximum length
		 * @return this builder
		 */
		public Builder maxNameLength(int maxNameLength) {
			Assert.isTrue(maxNameLength >= 64, () -> "Maximum lock name length must be at least 64, was " + maxNameLength);
			this.maxNameLength = maxNameLength;
			return this;
		}

		/**
		 * How many distinct metric groups ({@code lock} tag values) get meters of their own; locks
		 * of further groups are counted under {@code other}, so that names that carry ids cannot
		 * flood the registry. The default is 100.
		 * @param maxMetricGroups the maximum number of groups
		 * @return this builder
		 */
		public Builder maxMetricGroups(int maxMetricGroups) {
			Assert.isTrue(maxMetricGroups >= 1, () -> "Maximum metric groups must be at least 1, was " + maxMetricGroups);
			this.maxMetricGroups = maxMetricGroups;
			return this;
		}

		/**
		 * Makes every acquisition, release, hand-off and keep wait until {@code replicas} replicas
		 * of the lock's primary have it (Redis {@code WAIT}), so that a failover to one of them
		 * keeps the lock as it was. An acquisition that fewer replicas have within
		 * {@code timeout} is given up and fails with a {@link LockUnavailableException}; a release
		 * that fewer have takes effect and is reported (a warning and the
		 * {@code baton.lock.unreplicated} counter), as after a failover the lock may stay held
		 * for the rest of its lease. Renewals do not wait. The waits run on connections of their
		 * own (at most 8), never on the application's shared one, and need Lettuce. The default is
		 * 0: no waiting.
		 * @param replicas how many replicas to wait for, 0 for none
		 * @param timeout how long to wait for them, at least 1 ms
		 * @return this builder
		 */
		public Builder replicaAcknowledgement(int replicas, Duration timeout) {
			Assert.isTrue(replicas >= 0, () -> "Replicas to wait for must not be negative, was " + replicas);
			Assert.isTrue(timeout != null && timeout.toMillis() >= 1,
					() -> "Replica acknowledgement timeout must be at least 1 ms, was " + timeout);
			this.replicas = replicas;
			this.replicaTimeout = timeout;
			return this;
		}

		/**
		 * The name of this instance, stored with each lock it holds, so that another instance that
		 * could not acquire the lock can say which one holds it
		 * ({@link LockNotAcquiredException#getHolder()}). Need not be unique. The default is
		 * {@code <hostname>:<pid>}.
		 * @param instanceName the name, at most 128 characters, without control characters
		 * @return this builder
		 */
		public Builder instanceName(String instanceName) {
			Assert.notNull(instanceName, "Instance name must not be null");
			this.instanceName = InstanceNames.check(instanceName);
			return this;
		}

		/**
		 * Make the manager's threads with this factory: the ones that tell the
		 * {@link #lockLostListener} of losses ({@code baton-lock-events}), follow the release
		 * channels ({@code baton-lock-subscriptions}), pass their messages on to the waiters
		 * ({@code baton-lock-waiters}, ended after a minute without a message) and, with a Redis
		 * client whose subscriptions block a thread, hold the subscription
		 * ({@code baton-lock-waiters-subscription}); also the watchdog
		 * ({@code baton-lock-watchdog}), the release retries ({@code baton-lock-release-retry}) and
		 * the threads that open connections ({@code baton-redis-connect}) when it makes platform
		 * threads, but never as virtual threads, so that a renewal never waits for a carrier thread.
		 * Baton names each thread and makes each platform thread a daemon. The default is Baton's
		 * own daemon platform threads.
		 * @param threadFactory the factory, for instance of virtual threads
		 * @return this builder
		 */
		public Builder threadFactory(ThreadFactory threadFactory) {
			Assert.notNull(threadFactory, "ThreadFactory must not be null");
			this.threadFactory = threadFactory;
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
