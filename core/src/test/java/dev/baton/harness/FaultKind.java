package dev.baton.harness;

/**
 * The faults the harness injects. Proxy faults hit one instance's link to Redis (so partial
 * partitions happen); server faults hit Redis itself, and so every instance. {@link #FAILOVER} and
 * {@link #PRIMARY_KILL} are faults of a Sentinel set, {@link #PRIMARY_FREEZE},
 * {@link #PRIMARY_KILL_WITH_AOF} and {@link #PRIMARY_PAUSE} of a Redis Cluster (which also has
 * {@link #CLIENT_KILL}, on one primary), the others of a standalone server. A
 * consumer restart hits one instance's application, not its link; a {@link #JVM_PAUSE} the
 * child JVM, on a track after the instances'.
 */
enum FaultKind {

	/** The instance's connections are closed, and new ones refused, for the fault's duration. */
	CUT(true),

	/** Nothing is forwarded either way for the fault's duration: commands wait for their timeouts. */
	BLACK_HOLE(true),

	/** Every chunk is delayed, each way, for the fault's duration. */
	LATENCY(true),

	/** The next request is forwarded, its reply dropped and the link reset: Lettuce sends it again. */
	RESET_AFTER_FORWARD(true),

	/**
	 * {@code CLIENT KILL} of every normal and pub/sub client: all instances reconnect. On a Redis
	 * Cluster, {@code CLIENT KILL TYPE normal} on the fault's primary only.
	 */
	CLIENT_KILL(false),

	/** {@code CLIENT PAUSE} of every client for the fault's duration. */
	CLIENT_PAUSE(false),

	/** {@code kill -9} of Redis, restarted after the duration without its data: it comes back empty. */
	REDIS_KILL(false),

	/**
	 * {@code kill -9} of Redis, restarted after the duration from its append-only file, which it
	 * writes before it answers: every write it answered comes back, so nothing is excused as lost.
	 */
	REDIS_KILL_WITH_AOF(false),

	/**
	 * A rolling deploy of the instance's task consumer: stopped gracefully (running handlers finish
	 * within the shutdown timeout, or their tasks are handed back) and started again after the
	 * duration.
	 */
	CONSUMER_RESTART(true),

	/**
	 * A rolling deploy of the instance's lock manager: a new one takes the instance's acquisitions
	 * from then on, and the old one stops as the application's shutdown stops it: it waits until
	 * every lease it granted is released (acquisitions under way included), within a bound, and
	 * then closes. The fault's duration only places it among the instance's other faults.
	 */
	LOCKS_RESTART(true),

	/**
	 * A rolling deploy of the whole instance: a new application (connection factory, lock
	 * manager, queues, consumer) takes over at once, and the old one shuts down as Spring's
	 * graceful shutdown does it, in order: its consumer stops (handlers finish or hand their tasks
	 * back), its lock manager closes once every lease it granted is released (within a bound), then
	 * its queues and connection factory. The fault's duration only places it among the instance's
	 * other faults.
	 */
	INSTANCE_RESTART(true),

	/** {@code SENTINEL FAILOVER}: the sentinels promote the replica and demote the primary. */
	FAILOVER(false),

	/**
	 * {@code kill -9} of the Sentinel set's primary: the sentinels promote the replica; the killed
	 * node is restarted (empty) after the fault's duration, once they have, and they make it a replica.
	 */
	PRIMARY_KILL(false),

	/**
	 * {@code SIGSTOP} of one Redis Cluster primary's process, {@code SIGCONT} after the fault's
	 * duration: its connections stay open and its commands wait, as in a long GC-like stall or a
	 * frozen VM; beyond {@code cluster-node-timeout} the other nodes mark it failed.
	 */
	PRIMARY_FREEZE(false),

	/**
	 * {@code kill -9} of one Redis Cluster primary, restarted after the fault's duration from its
	 * append-only file and its {@code nodes.conf}: its slots answer nothing meanwhile (beyond
	 * {@code cluster-node-timeout} the others mark it failed, and the whole cluster refuses
	 * commands), connections to it are refused until it is back, and every write it answered
	 * comes back with it.
	 */
	PRIMARY_KILL_WITH_AOF(false),

	/**
	 * {@code CLIENT PAUSE} of one Redis Cluster primary for the fault's duration: its clients'
	 * commands wait while the cluster bus goes on, so no node marks it failed and the other
	 * primaries keep serving their slots: a slow shard (a long command, a slow disk) rather than a
	 * dead one.
	 */
	PRIMARY_PAUSE(false),

	/**
	 * {@code SIGSTOP} of the child JVM's lock instance ({@link ChildLockInstance}), {@code SIGCONT}
	 * after the fault's duration: its holders, watchdog included, stand still while their leases
	 * run out on Redis, as in a long garbage collection pause or a suspended VM.
	 */
	JVM_PAUSE(true);

	private final boolean perInstance;

	FaultKind(boolean perInstance) {
		this.perInstance = perInstance;
	}

	boolean perInstance() {
		return this.perInstance;
	}

	/**
	 * Whether it keeps only the keys of its own primary out of reach, all the others answering: a
	 * paused primary. A frozen one is marked failed by the others, and the whole cluster refuses
	 * commands then.
	 */
	boolean oneNodeOnly() {
		return this == PRIMARY_PAUSE;
	}

	/**
	 * Whether it holds requests back and delivers them later, rather than dropping them: a slow
	 * link, a paused or frozen server. A request that timed out under it may still run afterwards.
	 */
	boolean holdsRequests() {
		return this == LATENCY || this == CLIENT_PAUSE || this == PRIMARY_PAUSE || this == PRIMARY_FREEZE;
	}

	/**
	 * Whether it ends the client's connections and refuses new ones until it is undone, so that
	 * Lettuce waits longer and longer between its reconnect attempts.
	 */
	boolean refusesConnections() {
		return this == CUT || this == REDIS_KILL || this == REDIS_KILL_WITH_AOF || this == PRIMARY_KILL_WITH_AOF;
	}

	/**
	 * Whether Redis is out of reach (for the instance, or all) from when the injector applies the
	 * fault until it is undone. Restarts stop a part of the application, not its link; a Sentinel
	 * set's faults first wait for a replica in sync, so the topology times them itself.
	 */
	boolean timedHere() {
		return switch (this) {
			case CONSUMER_RESTART, LOCKS_RESTART, INSTANCE_RESTART, FAILOVER, PRIMARY_KILL, JVM_PAUSE -> false;
			default -> true;
		};
	}

}
