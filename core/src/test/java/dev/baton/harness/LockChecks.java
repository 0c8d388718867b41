package dev.baton.harness;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.redis.RedisLockManager;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The lock invariants, checked once the faults have ended and every loss report has had time to
 * arrive. Each names the sentence of {@code docs/guarantees.md} it checks.
 */
final class LockChecks {

	static final String EXCLUSION = "Mutual exclusion while Redis keeps its data";

	static final String FENCING = "Fencing tokens close the window at the resource";

	static final String BOUNDED = "every lock command has Baton's own timeout";

	static final String NOTHING_LEFT = "nothing is held or renewed after the holders are gone";

	static final String SHUTDOWN = "Stopping the application never gives away a lock in use";

	static final String REPLAY = "A lock command that runs twice has the outcome of running once";

	static final String INTERRUPTS_KEPT = "Interrupts never skip a release";

	/**
	 * Faults after which a key may hold an owner that no holder knows of until its lease runs out:
	 * a grant whose reply was lost on the instance's link, or on a server out of reach; a release
	 * that was not confirmed. A reset or a killed client is not among them: Lettuce sends the
	 * command again, and its second run must have the outcome of the first.
	 */
	private static final Set<FaultKind> LEAVE_OWNERS = EnumSet.of(FaultKind.CUT, FaultKind.BLACK_HOLE,
			FaultKind.LATENCY, FaultKind.CLIENT_PAUSE, FaultKind.REDIS_KILL, FaultKind.REDIS_KILL_WITH_AOF,
			FaultKind.FAILOVER, FaultKind.PRIMARY_KILL, FaultKind.PRIMARY_FREEZE, FaultKind.PRIMARY_KILL_WITH_AOF);

	private final LockWorkload workload;

	private final LossReports losses;

	private final List<long[]> kills;

	private final Duration leaseTime;

	private final Violations violations;

	private int excusedByLoss;

	private int excusedByKill;

	private int refusalsOfOwnOwner;

	private int refusalsUnjudged;

	private int ownOwnerExcusedByCall;

	private int ownOwnerExcusedByFault;

	LockChecks(LockWorkload workload, LossReports losses, List<long[]> kills, Duration leaseTime) {
		this.workload = workload;
		this.losses = losses;
		this.kills = kills;
		this.leaseTime = leaseTime;
		this.violations = workload.violations;
	}

	/**
	 * A lock manager that a restart closed once it reported all released must have no holder of a
	 * lease it granted left in its critical section, unless that holder learned its lease was lost
	 * (a lost lease is no longer held, so all is released without it): nothing would renew it.
	 */
	void checkShutdowns(List<FaultInjector.LockShutdown> shutdowns) {
		for (FaultInjector.LockShutdown shutdown : shutdowns) {
			if (!shutdown.released()) {
				continue;
			}
			for (Hold hold : this.workload.holds) {
				if (hold.grantedBy == shutdown.manager() && hold.endMillis > shutdown.atMillis() && !hold.lostAtEnd) {
					this.violations.add(shutdown.atMillis(), hold.name, SHUTDOWN,
							"the lock manager that granted " + hold + " reported all released and closed at "
									+ shutdown.atMillis() + " ms while it still held the lock");
				}
			}
		}
	}

	void checkHistory() {
		checkTokensUnique();
		for (UnfencedCounter.Overlap overlap : this.workload.counter.overlaps()) {
			if (!excused(overlap.atMillis(), overlap.holders())) {
				this.violations.add(overlap.atMillis(), overlap.name(), EXCLUSION,
						"two holders at once, none told of a loss and Redis not restarted: " + overlap.holders());
			}
		}
		for (FencedRegister.Refusal refusal : this.workload.register.refusals()) {
			if (!excused(refusal.atMillis(), List.of(refusal.hold()))) {
				this.violations.add(refusal.atMillis(), refusal.hold().name, FENCING,
						"the register refused " + refusal.hold() + ", never told of a loss, after accepting "
								+ refusal.last() + ": tokens did not grow in the order the lock was held");
			}
		}
	}

	private void checkTokensUnique() {
		Map<String, Hold> byToken = new HashMap<>();
		for (Hold hold : this.workload.holds) {
			if (hold.token == Hold.NO_TOKEN || hold.restored) {
				// A restored lease's token is the one handed over: HandOverWorker compares them.
				continue;
			}
			Hold other = byToken.putIfAbsent(hold.name + "#" + hold.token, hold);
			if (other != null) {
				this.violations.add(hold.startMillis, hold.name, FENCING,
						"token " + hold.token + " issued to both " + other + " and " + hold);
			}
		}
	}

	/**
	 * Whether the docs excuse a holder in the way of another: one of them was told of its loss, or
	 * Redis was killed (without persistence) and a lease may still run from before the kill.
	 */
	private boolean excused(long atMillis, List<Hold> holders) {
		if (holders.stream().anyMatch((hold) -> hold.lostAtEnd || this.losses.reported(hold))) {
			this.excusedByLoss++;
			return true;
		}
		long window = this.leaseTime.toMillis() + 1000;
		if (this.kills.stream().anyMatch((kill) -> kill[0] <= atMillis && atMillis <= kill[1] + window)) {
			this.excusedByKill++;
			return true;
		}
		return false;
	}

	/**
	 * Liveness: an acquisition refused while the key held an owner of the caller's own lock
	 * manager must be explained by another call of that instance on the lock (under way then and
	 * granted the lock, or a reply of it lost less than a lease and a second before; the instance
	 * rather than the manager, as a {@code @DistributedLock} call does not know which manager of a
	 * restarted instance the advisor asked), or by a fault that may leave an
	 * owner nobody knows of ({@link #LEAVE_OWNERS}, on the instance's link or the server) that
	 * ended less than a lease and a second before. Otherwise the acquisition itself put its owner
	 * there, a command of it run twice: the caller is told "not acquired" while Redis holds the
	 * lock for it until its lease runs out.
	 * @param injected the faults applied during the run
	 */
	void checkRefusals(List<FaultInjector.Applied> injected) {
		long linger = this.leaseTime.toMillis() + 1000;
		for (RefusedAcquisition refusal : this.workload.refusals) {
			if (this.workload.keys.prefixOf(refusal.manager()) == null) {
				// None of the manager's holders was seen: its owners cannot be told from others.
				this.refusalsUnjudged++;
				continue;
			}
			if (!this.workload.keys.isOwnerOf(refusal.manager(), refusal.found())) {
				continue;
			}
			this.refusalsOfOwnOwner++;
			if (this.workload.uses.stream()
				.anyMatch((use) -> use != refusal.use() && use.instance == refusal.use().instance
						&& use.name.equals(refusal.name())
						&& use.mayHoldBetween(refusal.atMillis(), refusal.readEndMillis(), linger))) {
				this.ownOwnerExcusedByCall++;
				continue;
			}
			if (injected.stream()
				.anyMatch((applied) -> LEAVE_OWNERS.contains(applied.fault().kind())
						&& (applied.fault().instance() == -1 || applied.fault().instance() == refusal.use().instance)
						&& applied.startMillis() <= refusal.readEndMillis()
						&& refusal.atMillis() <= applied.undoneMillis() + linger)) {
				this.ownOwnerExcusedByFault++;
				continue;
			}
			this.violations.add(refusal.atMillis(), refusal.name(), REPLAY,
					refusal.use() + " was refused, and right after, at " + refusal.atMillis() + " ms, Redis held "
							+ "the lock for " + refusal.found() + ": an owner of the caller's own lock manager that no "
							+ "other call of instance-" + refusal.use().instance + " was using, with no cut, black "
							+ "hole, latency or server fault within a lease and a second");
		}
	}

	/** After healing: every manager holds nothing, and Redis keeps no lock key without an expiry. */
	void checkNothingLeft(List<RedisLockManager> managers, StringRedisTemplate redis) throws InterruptedException {
		for (int i = 0; i < managers.size(); i++) {
			RedisLockManager manager = managers.get(i);
			try {
				manager.allReleased().get(this.leaseTime.toMillis() + 5000, TimeUnit.MILLISECONDS);
			}
			catch (Exception ex) {
				this.violations.add("locks", NOTHING_LEFT, "instance-" + i + ": allReleased() did not complete: " + ex);
			}
			if (manager.heldCount() != 0) {
				this.violations.add("locks", NOTHING_LEFT,
						"instance-" + i + " still holds " + manager.heldLocks() + " after every holder released");
			}
		}
		// Releases are retried until confirmed or the lease ran out: after a lease, no lock key is left.
		long deadline = System.nanoTime() + this.leaseTime.plusSeconds(3).toNanos();
		Set<String> left = lockKeys(redis);
		while (!left.isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(100);
			left = lockKeys(redis);
		}
		left.forEach((key) -> this.violations.add("locks", NOTHING_LEFT, "lock key " + key + " still there, ttl "
				+ redis.getExpire(key, TimeUnit.MILLISECONDS) + " ms"));
		for (String key : redis.keys("baton:lock:*")) {
			Long ttl = redis.getExpire(key);
			if (ttl != null && ttl == -1) {
				this.violations.add("locks", NOTHING_LEFT, "key " + key + " has no expiry");
			}
		}
	}

	private static Set<String> lockKeys(StringRedisTemplate redis) {
		Set<String> keys = redis.keys("baton:lock:*");
		keys.removeIf((key) -> key.endsWith(":fence") || key.endsWith(":waiting"));
		return keys;
	}

	String summary() {
		return this.workload.holds.size() + " critical sections, " + this.workload.register.accepted()
				+ " fenced writes accepted, " + this.workload.register.refusals().size() + " refused, "
				+ this.workload.counter.overlaps().size() + " overlaps; of overlaps and refusals, " + this.excusedByLoss
				+ " excused by a reported loss and " + this.excusedByKill + " by a Redis kill; " + this.losses.count()
				+ " losses reported, " + this.workload.unavailable.get() + " calls unavailable, "
				+ this.workload.unconfirmedReleases.get() + " releases unconfirmed, " + this.workload.bounds.interrupts()
				+ " calls interrupted, " + this.workload.handedOver.get() + " leases handed over ("
				+ this.workload.restoredInvalid.get() + " restored invalid, " + this.workload.restoredTwice.get()
				+ " tokens restored twice), " + this.workload.bounds.calls()
				+ " calls timed (longest " + this.workload.bounds.longestOverWaitMillis() + " ms beyond its wait); "
				+ this.workload.refusals.size() + " refused acquisitions checked (" + this.workload.refusalsUnread.get()
				+ " more with the key unread, " + this.refusalsUnjudged + " of a manager not seen holding), "
				+ this.refusalsOfOwnOwner + " with the key held by their own manager, " + this.ownOwnerExcusedByCall
				+ " of them excused by another call, " + this.ownOwnerExcusedByFault + " by a fault";
	}

}
