package dev.baton.autoconfigure.lock;

import java.time.Duration;

import dev.baton.lock.annotation.DistributedLockAdvisor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Baton's distributed locks.
 */
@ConfigurationProperties(prefix = "baton.lock", ignoreUnknownFields = false)
public class BatonLockProperties {

	/**
	 * Whether to create the LockManager and apply @DistributedLock.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every lock key; the lock name follows in braces, as a cluster hash tag.
	 */
	private String keyPrefix = "baton:lock:";

	/**
	 * Lease of locks taken without a lease time; the watchdog renews them every third of it
	 * while they are held.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * How long @DistributedLock waits for a lock when the annotation does not say; 0 tries once.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * How long a lock command may wait for Redis before it fails with LockUnavailableException,
	 * whatever the connection's command timeout; renewals use at most half of lease-time / 3.
	 */
	private Duration commandTimeout = Duration.ofSeconds(2);

	/**
	 * Most elements a collection key of @DistributedLock may evaluate to.
	 */
	private int maxKeys = 100;

	/**
	 * Whether a @DistributedLock that a Spring proxy cannot apply (on a private, static or final
	 * method, a package-private one inherited from another package, or called from inside its own
	 * class) fails start-up instead of logging a warning.
	 */
	private boolean failOnUnproxiedCalls;

	/**
	 * Longest lock name accepted, in characters.
	 */
	private int maxNameLength = 1024;

	/**
	 * How many distinct lock metric groups get meters of their own; further groups are tagged
	 * "other".
	 */
	private int maxMetricGroups = 100;

	/**
	 * Order of the @DistributedLock advice; the default runs it outside @Transactional.
	 */
	private int aspectOrder = DistributedLockAdvisor.DEFAULT_ORDER;

	/**
	 * Name of this instance, stored with each lock it holds, so that an instance that cannot
	 * acquire the lock names its holder in LockNotAcquiredException; at most 128 characters. The
	 * default is <hostname>:<pid>.
	 */
	private @Nullable String instanceName;

	private final ReplicaAcknowledgement replicaAcknowledgement = new ReplicaAcknowledgement();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public int getMaxKeys() {
		return this.maxKeys;
	}

	public void setMaxKeys(int maxKeys) {
		this.maxKeys = maxKeys;
	}

	public boolean isFailOnUnproxiedCalls() {
		return this.failOnUnproxiedCalls;
	}

	public void setFailOnUnproxiedCalls(boolean failOnUnproxiedCalls) {
		this.failOnUnproxiedCalls = failOnUnproxiedCalls;
	}

	public int getMaxNameLength() {
		return this.maxNameLength;
	}

	public void setMaxNameLength(int maxNameLength) {
		this.maxNameLength = maxNameLength;
	}

	public int getMaxMetricGroups() {
		return this.maxMetricGroups;
	}

	public void setMaxMetricGroups(int maxMetricGroups) {
		this.maxMetricGroups = maxMetricGroups;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public @Nullable String getInstanceName() {
		return this.instanceName;
	}

	public void setInstanceName(@Nullable String instanceName) {
		this.instanceName = instanceName;
	}

	public ReplicaAcknowledgement getReplicaAcknowledgement() {
		return this.replicaAcknowledgement;
	}

	/**
	 * Waiting for replicas to have each lock write (Redis WAIT), so that a failover keeps locks
	 * as they were.
	 */
	public static class ReplicaAcknowledgement {

		/**
		 * How many replicas an acquisition, release, hand-off or keep waits for; 0 waits for none.
		 * An acquisition that fewer replicas have in time fails with LockUnavailableException.
		 */
		private int replicas;

		/**
		 * How long a lock write waits for its replicas.
		 */
		private Duration timeout = Duration.ofMillis(500);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
