package dev.baton.lock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A request to acquire a lock, for {@link LockManager#tryAcquire(LockRequest)}.
 *
 * @param name the lock name, e.g. {@code order:42}
 * @param group the low-cardinality name that metrics are tagged with, e.g. {@code order}; by
 * default the part of the name before its first colon
 * @param waitTime how long to wait for the lock; {@link Duration#ZERO} tries once
 * @param leaseTime how long the lock is held unless released earlier, or {@code null} to have
 * the watchdog renew it until it is released
 */
public record LockRequest(String name, String group, Duration waitTime, @Nullable Duration leaseTime) {

	/**
	 * The longest lease time: 36,500 days, well inside the expiry Redis accepts (a longer
	 * {@code PX} fails with "invalid expire time").
	 */
	public static final Duration MAX_LEASE_TIME = Duration.ofDays(36_500);

	/**
	 * Validate the request. A wait time too long to count in nanoseconds (such as
	 * {@code Duration.ofSeconds(Long.MAX_VALUE)}) waits as long as it takes.
	 * @throws IllegalArgumentException if a name is null or blank, a duration negative, or the
	 * lease time longer than {@link #MAX_LEASE_TIME}
	 */
	public LockRequest {
		Assert.notNull(name, "Lock name must not be null");
		Assert.hasText(name, "Lock name must not be blank");
		Assert.hasText(group, "Lock group must not be blank");
		Assert.notNull(waitTime, "Wait time must not be null");
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + name + "' must not be negative");
		Assert.isTrue(leaseTime == null || !(leaseTime.isNegative() || leaseTime.isZero()),
				() -> "Lease time of lock '" + name + "' must be positive");
		checkLeaseTime(leaseTime, "Lease time of lock '" + name + "'");
	}

	/**
	 * Refuses the time a held lease is to be extended by, for {@link LockLease#extend(Duration)}:
	 * it must be positive and at most {@link #MAX_LEASE_TIME}.
	 * @param lockName the lock, for the message
	 * @param leaseTime the time asked for
	 * @throws IllegalArgumentException naming the lock if the time is refused
	 */
	public static void checkExtension(String lockName, @Nullable Duration leaseTime) {
		String what = "Lease time to extend lock '" + lockName + "' by";
		Assert.isTrue(leaseTime != null && !leaseTime.isNegative() && !leaseTime.isZero(),
				() -> what + " must be positive, was " + leaseTime);
		checkLeaseTime(leaseTime, what);
	}

	/**
	 * Refuses a lease time longer than {@link #MAX_LEASE_TIME}.
	 * @param leaseTime the lease time, or {@code null} for none
	 * @param what what the lease time belongs to, for the message
	 */
	public static void checkLeaseTime(@Nullable Duration leaseTime, String what) {
		Assert.isTrue(leaseTime == null || leaseTime.compareTo(MAX_LEASE_TIME) <= 0, () -> what + " of " + leaseTime
				+ " is longer than the longest lease Redis keeps, " + MAX_LEASE_TIME.toDays() + " days");
	}

	/**
	 * The metric group of a lock name when none is given: the part before the first colon, so
	 * that {@code inventory:42} and {@code inventory:43} share the group {@code inventory}; a name
	 * without a colon is its own group. Names that carry ids without a colon should name their
	 * group explicitly.
	 * @param name the lock name
	 * @return the group
	 */
	public static String defaultGroup(String name) {
		Assert.notNull(name, "Lock name must not be null");
		int colon = name.indexOf(':');
		return (colon > 0) ? name.substring(0, colon) : name;
	}

	/**
	 * Start a request for the named lock: tried once, renewed by the watchdog, tagged with the
	 * {@linkplain #defaultGroup(String) default group} of its name.
	 * @param name the lock name
	 * @return a builder
	 */
	public static Builder of(String name) {
		return new Builder(name);
	}

	/** Builds a {@link LockRequest}. */
	public static final class Builder {

		private final String name;

		private @Nullable String group;

		private Duration waitTime = Duration.ZERO;

		private @Nullable Duration leaseTime;

		private Builder(String name) {
			this.name = name;
		}

		/**
		 * Tag metrics with this group instead of the lock name; use it when names carry ids.
		 * @param group the low-cardinality group name
		 * @return this builder
		 */
		public Builder group(String group) {
			this.group = group;
			return this;
		}

		/**
		 * Wait up to this long for the lock.
		 * @param waitTime the wait time, zero to try once
		 * @return this builder
		 */
		public Builder waitTime(Duration waitTime) {
			this.waitTime = waitTime;
			return this;
		}

		/**
		 * Hold the lock at most this long, or {@code null} for watchdog renewal.
		 * @param leaseTime the lease time
		 * @return this builder
		 */
		public Builder leaseTime(@Nullable Duration leaseTime) {
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 * @throws IllegalArgumentException if a name is blank or a duration negative
		 */
		public LockRequest build() {
			return new LockRequest(this.name, (this.group != null) ? this.group : defaultGroup(this.name),
					this.waitTime, this.leaseTime);
		}

	}

}
