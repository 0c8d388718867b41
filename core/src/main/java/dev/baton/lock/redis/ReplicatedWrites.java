package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import dev.baton.internal.ReplicaAcknowledgedScripts;
import dev.baton.internal.ReplicaAcknowledgedScripts.Acknowledged;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the scripts that write a lock for {@link LockCommands} and, with replica acknowledgement,
 * waits until the replicas have each write. An acquisition they do not all have is refused, as a
 * failover could grant the lock again; a release, hand-off or keep they do not all have is reported
 * (warning and metric): after a failover the lock may stay held for the rest of its lease.
 * Renewals do not wait: a replica that missed one still has the lock for two thirds of a lease.
 */
final class ReplicatedWrites {

	/** Logs as the lock commands whose writes these are. */
	private static final Log logger = LogFactory.getLog(LockCommands.class);

	private final TimedScripts calls;

	private final @Nullable ReplicaAcknowledgedScripts replicated;

	private final int replicasAwaited;

	private final LockMetrics metrics;

	/**
	 * @param calls what runs a write when no replica is awaited
	 * @param replicas how many replicas a write waits for, 0 for none
	 * @param replicaTimeout how long a write waits for them
	 */
	ReplicatedWrites(RedisConnectionFactory connectionFactory, TimedScripts calls, int replicas,
			Duration replicaTimeout, LockMetrics metrics) {
		this.calls = calls;
		this.replicated = (replicas > 0) ? new ReplicaAcknowledgedScripts(connectionFactory, replicas, replicaTimeout,
				calls.timeout(), LockUnavailableException::new) : null;
		this.replicasAwaited = replicas;
		this.metrics = metrics;
	}

	/** Whether writes wait for replicas. */
	boolean awaitReplicas() {
		return this.replicated != null;
	}

	/**
	 * Runs an acquisition. Without a reply, the caller releases quietly; with replicas, the
	 * {@code release} is also sent on the acquisition's own connection.
	 */
	Acknowledged acquire(String what, TimedScripts.Script acquire, TimedScripts.Script release) {
		return (this.replicated != null) ? this.replicated.eval(what, acquire, release)
				: new Acknowledged(this.calls.value(what, this.calls.evalAll(what, List.of(acquire)).get(0)), 0);
	}

	/** Runs a script that writes the lock; with replica acknowledgement, waits for the replicas. */
	Acknowledged write(String what, RedisScript<?> script, List<String> keys, String... args) {
		if (this.replicated == null) {
			return new Acknowledged(this.calls.eval(what, script, keys, args), 0);
		}
		return this.replicated.eval(what, new TimedScripts.Script(script, keys, args));
	}

	/** Whether fewer replicas than awaited had the write of {@code operation}; if so, counted. */
	boolean countUnreplicated(String operation, Acknowledged reply) {
		if (reply.replicas() >= this.replicasAwaited) {
			return false;
		}
		this.metrics.unreplicated(operation);
		return true;
	}

	/** Refuses an acquisition that fewer replicas than awaited have. */
	void refuseIfUnreplicated(LockKeys keys, Acknowledged reply) {
		if (countUnreplicated("acquire", reply)) {
			String shortfall = replicasOf(reply) + " had it in time";
			// The caller releases the lock, as for any acquisition that ends in this exception.
			throw new LockUnavailableException("Lock '" + keys.name() + "' was not granted: " + shortfall
					+ ", so a failover could grant it again", new TimeoutException(shortfall));
		}
	}

	/** Warns of a write that took effect but that fewer replicas than awaited have. */
	void reportIfUnreplicated(LockKeys keys, String operation, Acknowledged reply) {
		if (countUnreplicated(operation, reply)) {
			logger.warn("The " + operation + " of lock '" + keys.name() + "' took effect, but only " + replicasOf(reply)
					+ " had it in time: after a failover the lock may stay held until its lease runs out");
		}
	}

	private String replicasOf(Acknowledged reply) {
		return reply.replicas() + " of " + this.replicasAwaited + " replica(s)";
	}

	/** Closes the idle connections that wait for replicas: after a failover they lead to the old primary. */
	void closeIdle() {
		if (this.replicated != null) {
			this.replicated.closeIdle();
		}
	}

	/** Closes the connections that wait for replicas. */
	void close() {
		if (this.replicated != null) {
			this.replicated.close();
		}
	}

}
