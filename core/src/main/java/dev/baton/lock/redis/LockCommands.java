package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.FailoverHold;
import dev.baton.internal.LuaScripts;
import dev.baton.internal.ReplicaAcknowledgedScripts.Acknowledged;
import dev.baton.internal.TimedScripts;
import dev.baton.lock.LockUnavailableException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock's Redis commands: each one atomic, one script, bounded by the lock command timeout.
 * Every failure is a {@link LockUnavailableException} that names the lock. With replica
 * acknowledgement, every write but a renewal also waits until the replicas have it
 * ({@link ReplicatedWrites}).
 */
final class LockCommands {

	private static final RedisScript<List<?>> ACQUIRE = fencingScript("acquire.lua", List.class);

	private static final RedisScript<Long> HAND_OFF = fencingScript("handoff.lua", Long.class);

	private static final RedisScript<Long> ISSUE_TOKEN = fencingScript("token.lua", Long.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> EXTEND = script("extend.lua", Long.class);

	private static final RedisScript<Long> KEEP = script("keep.lua", Long.class);

	private static final RedisScript<Long> REKEY = script("rekey.lua", Long.class);

	private static final RedisScript<Long> LOCKED = script("locked.lua", Long.class);

	private static final long UNKNOWN_LEASE_MILLIS = 1000;

	/** What {@link #handOff} returns when the new owner has it but fewer replicas than awaited do. */
	static final long UNREPLICATED = -1;

	/**
	 * Fencing tokens that each acquisition and hand-off in Redis reserves: its own, and one for each
	 * turn within this JVM that may follow it without a script (see {@link RedisLockLease#passTo}).
	 */
	static final int RESERVED_TOKENS = HandOffFairness.MAX_TURNS_IN_A_ROW;

	private final TimedScripts calls;

	private final ReplicatedWrites writes;

	/** Noted only while a {@link dev.baton.internal.PrimarySwitchWatch} may ask for them. */
	private volatile @Nullable RecentReleases recentReleases;

	/**
	 * @param replicas how many replicas a write waits for, 0 for none
	 * @param replicaTimeout how long a write waits for them
	 */
	LockCommands(BatonThreads threads, RedisConnectionFactory connectionFactory, Duration timeout, int replicas,
			Duration replicaTimeout, LockMetrics metrics) {
		this.calls = new TimedScripts(threads, connectionFactory, timeout, LockUnavailableException::new);
		this.writes = new ReplicatedWrites(connectionFactory, this.calls, replicas, replicaTimeout, metrics);
	}

	Duration timeout() {
		return this.calls.timeout();
	}

	/**
	 * Takes the lock if it is free, reserving {@value #RESERVED_TOKENS} fencing tokens.
	 * @param waitingMillis how long to mark the lock as awaited if it is taken, 0 when the caller does not wait
	 * @return the fencing token (positive), or minus the holder's remaining lease in ms (at most 0)
	 */
	long acquire(LockKeys keys, String owner, long leaseMillis, long fenceMillis, long waitingMillis) {
		TimedScripts.Script acquire = new TimedScripts.Script(ACQUIRE, List.of(keys.lock(), keys.fence(), keys.waiting()),
				owner, String.valueOf(leaseMillis), String.valueOf(fenceMillis), String.valueOf(waitingMillis),
				String.valueOf(RESERVED_TOKENS));
		Acknowledged reply = this.writes.acquire("acquire lock '" + keys.name() + "'", acquire,
				releaseScript(keys, owner));
		List<?> result = (List<?>) reply.value();
		long value = ((Number) result.get(1)).longValue();
		if (((Number) result.get(0)).longValue() == 1) {
			this.writes.refuseIfUnreplicated(keys, reply);
			return value;
		}
		// A key without expiry (not one of ours): look again in a second.
		return (value < 0) ? -UNKNOWN_LEASE_MILLIS : -value;
	}

	/**
	 * Takes the lock if it is free, without a fencing token and without marking it awaited: one
	 * {@code SET ... NX PX}, the cheapest acquisition Redis has. Without replica acknowledgement
	 * only: that waits on a script's connection.
	 * @return whether the lock was taken
	 */
	boolean take(LockKeys keys, String owner, long leaseMillis) {
		return this.calls.setIfAbsent("acquire lock '" + keys.name() + "'", keys.lock(), owner, leaseMillis);
	}

	/**
	 * Whether {@code owner} holds the lock: after {@link #take} was refused, tells a lock that the
	 * same command took before it ran again after a reconnect.
	 */
	boolean isHeldBy(LockKeys keys, String owner) {
		return owner.equals(holder(keys));
	}

	/** The owner id the lock holds, or {@code null} if it is free; one {@code GET}. */
	@Nullable String holder(LockKeys keys) {
		return this.calls.get("look up lock '" + keys.name() + "'", keys.lock());
	}

	/** Whether {@link #take} may be used: no replica acknowledgement is awaited. */
	boolean takesWithoutScript() {
		return !this.writes.awaitReplicas();
	}

	/**
	 * Issues the fencing token of an acquisition made by {@link #take}, reserving
	 * {@value #RESERVED_TOKENS} fencing tokens, if {@code owner} still holds the lock.
	 * @return the fencing token, or 0 when {@code owner} no longer held the lock
	 */
	long issueToken(LockKeys keys, String owner, long fenceMillis) {
		Acknowledged reply = this.writes.write("issue a fencing token for lock '" + keys.name() + "'", ISSUE_TOKEN,
				List.of(keys.lock(), keys.fence()), owner, String.valueOf(fenceMillis), String.valueOf(RESERVED_TOKENS));
		return number(reply.value());
	}

	/**
	 * Passes the lock from {@code owner} to {@code newOwner} if {@code owner} still holds it,
	 * reserving {@value #RESERVED_TOKENS} fencing tokens.
	 * @return the new owner's fencing token, 0 when {@code owner} no longer held the lock, or
	 * {@link #UNREPLICATED} when fewer replicas than awaited have the new owner (counted)
	 */
	long handOff(LockKeys keys, String owner, String newOwner, long leaseMillis, long fenceMillis) {
		Acknowledged reply = this.writes.write("hand over lock '" + keys.name() + "'", HAND_OFF,
				List.of(keys.lock(), keys.fence()), owner, newOwner, String.valueOf(leaseMillis),
				String.valueOf(fenceMillis), String.valueOf(RESERVED_TOKENS));
		long token = number(reply.value());
		if (token > 0) {
			noteReleased(keys, owner);
		}
		if (token > 0 && this.writes.countUnreplicated("hand-off", reply)) {
			return UNREPLICATED;
		}
		return token;
	}

	/**
	 * Deletes the lock if {@code owner} holds it ({@code ""}: whoever holds it), publishing to
	 * waiters if one marked the lock.
	 */
	Released release(LockKeys keys, String owner) {
		return release(keys, owner, "");
	}

	/**
	 * Deletes the lock if {@code owner} holds it, publishing to waiters whether or not one marked
	 * the lock, so that every instance's waiters compete for it.
	 */
	Released yieldToAll(LockKeys keys, String owner) {
		return release(keys, owner, "1");
	}

	private Released release(LockKeys keys, String owner, String yielding) {
		Acknowledged reply = this.writes.write("release lock '" + keys.name() + "'", RELEASE,
				List.of(keys.lock(), keys.waiting()), owner, keys.channel(), yielding);
		this.writes.reportIfUnreplicated(keys, "release", reply);
		Released released = Released.values()[(int) number(reply.value())];
		if (released.deleted()) {
			noteReleased(keys, owner);
		}
		return released;
	}

	private void noteReleased(LockKeys keys, String owner) {
		RecentReleases recent = this.recentReleases;
		if (recent != null && !owner.isEmpty()) {
			recent.add(keys, owner);
		}
	}

	/**
	 * Starts noting releases made in Redis, for {@link #repeatRecentReleases()}, and holds calls
	 * back while a failover promotes a replica.
	 */
	void followPrimary(FailoverHold hold) {
		this.recentReleases = new RecentReleases();
		this.calls.followPrimary(hold);
	}

	/**
	 * Sends the releases of the last seconds again, owner checked, without waiting: after a
	 * failover, the new primary may hold locks whose release the old primary took and lost.
	 * @return how many were sent
	 */
	int repeatRecentReleases() {
		RecentReleases recent = this.recentReleases;
		if (recent == null) {
			return 0;
		}
		List<RecentReleases.Release> releases = recent.recent();
		releases.forEach((release) -> releaseQuietly(release.keys(), release.owner()));
		return releases.size();
	}

	/** The outcome of a release, in the order of release.lua's results. */
	enum Released {

		/**
		 * Nobody held the lock: it expired, Redis lost it, or this release ran twice (Lettuce
		 * sends a command again after a reconnect when its reply was lost).
		 */
		GONE,

		/** Deleted. */
		RELEASED,

		/** Deleted on yielding, and waiters of other instances wait for it. */
		AWAITED_ELSEWHERE,

		/** Another owner holds the lock: lost. */
		TAKEN;

		/** Whether the release deleted the lock. */
		boolean deleted() {
			return this == RELEASED || this == AWAITED_ELSEWHERE;
		}

	}

	/**
	 * Sends a release without waiting for its reply: for a lock whose acquisition may or may not
	 * have happened (no reply in time), so that it is not left held for a whole lease.
	 */
	void releaseQuietly(LockKeys keys, String owner) {
		this.calls.sendQuietly(releaseScript(keys, owner));
	}

	/**
	 * Releases quietly for both owners of an owner change (a hand-off, a hand-over) that Redis did
	 * not answer in time: either may hold the lock now, and neither may keep it for a lease.
	 */
	void releaseEitherQuietly(LockKeys keys, String oldOwner, String newOwner) {
		releaseQuietly(keys, newOwner);
		releaseQuietly(keys, oldOwner);
	}

	private static TimedScripts.Script releaseScript(LockKeys keys, String owner) {
		return new TimedScripts.Script(RELEASE, List.of(keys.lock(), keys.waiting()), owner, keys.channel(), "");
	}

	/** Keeps the lock for {@code keepMillis} more, out of reach of its owner's renewals. */
	boolean keep(LockKeys keys, String owner, long keepMillis) {
		Acknowledged reply = this.writes.write("keep lock '" + keys.name() + "'", KEEP,
				List.of(keys.lock(), keys.waiting()), owner, String.valueOf(keepMillis), keys.channel());
		this.writes.reportIfUnreplicated(keys, "keep", reply);
		return number(reply.value()) == 1;
	}

	/**
	 * Makes the lock last at least {@code leaseMillis} from now if the owner still holds it.
	 * @return whether the owner held it
	 */
	boolean extend(LockKeys keys, String owner, long leaseMillis) {
		Acknowledged reply = this.writes.write("extend lock '" + keys.name() + "'", EXTEND, List.of(keys.lock()), owner,
				String.valueOf(leaseMillis));
		this.writes.reportIfUnreplicated(keys, "extension", reply);
		return number(reply.value()) == 1;
	}

	/**
	 * Gives the lock a new owner id if the owner still holds it, keeping its expiry.
	 * @return the remaining lease in ms, or -1 if the owner no longer held it
	 */
	long rekey(LockKeys keys, String owner, String newOwner) {
		Acknowledged reply = this.writes.write("change the owner of lock '" + keys.name() + "'", REKEY,
				List.of(keys.lock()), owner, newOwner);
		this.writes.reportIfUnreplicated(keys, "change of owner", reply);
		return number(reply.value());
	}

	/**
	 * Sends a change of owner without waiting for its reply: undoes a change whose reply did not
	 * come in time, if it ran.
	 */
	void rekeyQuietly(LockKeys keys, String owner, String newOwner) {
		this.calls.sendQuietly(new TimedScripts.Script(REKEY, List.of(keys.lock()), owner, newOwner));
	}

	/**
	 * Extends many locks at once: the scripts are sent together and their replies awaited up to
	 * one deadline.
	 * @return for each lock in order, whether its owner still held it, or {@code null} if Redis
	 * did not answer for it
	 * @throws LockUnavailableException if no connection could be had
	 */
	List<@Nullable Boolean> extendAll(List<LockKeys> keys, List<String> owners, long leaseMillis, Duration timeout) {
		List<TimedScripts.Script> scripts = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			scripts.add(new TimedScripts.Script(EXTEND, List.of(keys.get(i).lock()), owners.get(i),
					String.valueOf(leaseMillis)));
		}
		List<@Nullable Boolean> held = new ArrayList<>(keys.size());
		for (TimedScripts.Reply reply : this.calls.evalAll("renew " + keys.size() + " lock(s)", scripts, timeout)) {
			held.add((reply.failure() != null) ? null : number(reply.value()) == 1);
		}
		return held;
	}

	boolean exists(LockKeys keys) {
		return number(this.calls.eval("look up lock '" + keys.name() + "'", LOCKED, List.of(keys.lock()))) == 1;
	}

	/** Closes the idle connections that wait for replicas: after a failover they lead to the old primary. */
	void closeReplicaConnections() {
		this.writes.closeIdle();
	}

	/** Closes the connections that wait for replicas and stops the threads that open connections. */
	void close() {
		this.writes.close();
		this.calls.close();
	}

	private static long number(@Nullable Object reply) {
		return ((Number) reply).longValue();
	}

	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return LuaScripts.load(LockCommands.class, name, resultType);
	}

	/** A script that issues fencing tokens, loaded behind the function that does it. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static <T> RedisScript<T> fencingScript(String name, Class<?> resultType) {
		return (RedisScript) LuaScripts.load(LockCommands.class, "fence.lua", name, resultType);
	}

}
