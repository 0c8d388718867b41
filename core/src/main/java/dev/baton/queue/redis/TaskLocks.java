package dev.baton.queue.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.spi.TokenLeases;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.TaskLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The locks a queue's tasks hold: handed to a task when it is scheduled, kept while it waits and
 * while a delivery holds it (each delivery through its {@link TaskLease}), and released when it
 * ends for good. Lock keys and queue keys live in different hash slots, so each step is its own
 * owner-checked call beside the queue's script, ordered so that a crash between the two leaves
 * the lock to run out within its lease, never held longer.
 */
final class TaskLocks {

	private static final Log logger = LogFactory.getLog(TaskLocks.class);

	private final String queue;

	private final @Nullable TokenLeases leases;

	TaskLocks(String queue, @Nullable TokenLeases leases) {
		this.queue = queue;
		this.leases = leases;
	}

	/** The lease's lock handed over to a token for the task to store; the lease is this caller's no more. */
	LeaseToken handOver(LockLease lease) {
		if (this.leases == null) {
			throw new UnsupportedOperationException("Queue '" + this.queue + "' cannot schedule tasks that hold a "
					+ "lock: its delay queues were built without a lock manager");
		}
		if (lease == null) {
			throw new IllegalArgumentException("Lease must not be null");
		}
		return lease.handOver();
	}

	/** The task was not scheduled (its id was taken): the lease holds the lock again. */
	void giveBack(LockLease lease, LeaseToken token) {
		requireLeases().takeBack(lease, token);
	}

	/** Keeps a waiting task's lock until it is due plus its lease; a failure leaves it the lease it had. */
	void keepWaiting(String id, LeaseToken token, Duration delay) {
		TokenLeases leases = requireLeases();
		try {
			leases.extend(token, TaskLease.keepTime(leases, token, delay));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend lock '" + token.name() + "' of task '" + id + "' of queue '" + this.queue
					+ "' to the task's due time; it keeps the lease it had: " + ex.getMessage());
		}
	}

	/** The lease of a claimed task as its delivery keeps it, or {@code null} if it holds no lock or this queue has no lock manager. */
	@Nullable TaskLease leaseOf(String id, TaskMeta meta) {
		LeaseToken token = meta.lease();
		return (token != null && this.leases != null)
				? new TaskLease(token, this.leases, "task '" + id + "' of queue '" + this.queue + "'") : null;
	}

	/** A waiting task was cancelled, or a claimed one could not be read and was dead-lettered: releases its lock. */
	void ended(String id, TaskMeta meta) {
		TaskLease lease = leaseOf(id, meta);
		if (lease != null) {
			lease.end();
		}
	}

	/** A waiting task was rescheduled by {@code delay}: keeps its lock that much longer. */
	void rescheduled(String id, TaskMeta meta, Duration delay) {
		if (meta.lease() != null && this.leases != null) {
			keepWaiting(id, meta.lease(), delay);
		}
	}

	/** Keeps the locks of deliveries that hold their tasks for {@code wait} plus their lease. */
	<T> void keep(Collection<? extends Delivery<T>> deliveries, Duration wait) {
		for (Delivery<T> delivery : deliveries) {
			TaskLease lease = leaseOf(delivery);
			// After one call that did not reach Redis the rest keep what they have until the next
			// extension: waiting a command timeout for each would hold up the visibility extension.
			if (lease != null && !lease.keepFor(wait)) {
				return;
			}
		}
	}

	/**
	 * After deliveries were settled: those that ended their task for good release its lock; the
	 * others, and all stale ones, leave the lock to the task.
	 * @param ended whether the settlement ends the task (acknowledged or dead-lettered)
	 * @param stale the deliveries Redis found stale, or that it did not confirm
	 */
	<T> void settled(Collection<? extends Delivery<T>> deliveries, boolean ended, List<? extends Delivery<T>> stale) {
		boolean reachable = true;
		for (Delivery<T> delivery : deliveries) {
			TaskLease lease = leaseOf(delivery);
			if (lease != null) {
				if (reachable && ended && !stale.contains(delivery)) {
					reachable = lease.end();
				}
				else {
					// Also once Redis was not reached: the rest run out within their lease.
					lease.leave();
				}
			}
		}
	}

	private static @Nullable TaskLease leaseOf(Delivery<?> delivery) {
		return (delivery instanceof RedisDelivery<?> redisDelivery) ? redisDelivery.taskLease() : null;
	}

	private TokenLeases requireLeases() {
		if (this.leases == null) {
			throw new IllegalStateException("Queue '" + this.queue + "' has no lock manager");
		}
		return this.leases;
	}

}
