package dev.baton.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.internal.LuaScripts;
import dev.baton.internal.TimedScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock's Redis commands: each one atomic, one script, bounded by the lock command timeout.
 * Every failure is a {@link LockUnavailableException} that names the lock.
 */
final class LockCommands {

	private static final RedisScript<List<?>> ACQUIRE = fencingScript("acquire.lua", List.class);

	private static final RedisScript<Long> HAND_OFF = fencingScript("handoff.lua", Long.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> EXTEND = script("extend.lua", Long.class);

	private static final RedisScript<Long> KEEP = script("keep.lua", Long.class);

	private static final RedisScript<Long> LOCKED = script("locked.lua", Long.class);

	private static final long UNKNOWN_LEASE_MILLIS = 1000;

	private final TimedScripts calls;

	LockCommands(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.calls = new TimedScripts(connectionFactory, timeout, LockUnavailableException::new);
	}

	Duration timeout() {
		return this.calls.timeout();
	}

	/**
	 * Takes the lock if it is free.
	 * @param waitingMillis how long to mark the lock as awaited if it is taken, 0 when the caller does not wait
	 * @return the fencing token (positive), or minus the holder's remaining lease in ms (at most 0)
	 */
	long acquire(LockKeys keys, String owner, long leaseMillis, long fenceMillis, long waitingMillis) {
		List<?> result = (List<?>) this.calls.eval("acquire lock '" + keys.name() + "'", ACQUIRE,
				List.of(keys.lock(), keys.fence(), keys.waiting()), owner, String.valueOf(leaseMillis),
				String.valueOf(fenceMillis), String.valueOf(waitingMillis));
		long value = ((Number) result.get(1)).longValue();
		if (((Number) result.get(0)).longValue() == 1) {
			return value;
		}
		// A key without expiry (not one of ours): look again in a second.
		return (value < 0) ? -UNKNOWN_LEASE_MILLIS : -value;
	}

	/**
	 * Passes the lock from {@code owner} to {@code newOwner} if {@code owner} still holds it.
	 * @return the new owner's fencing token, or 0 when {@code owner} no longer held the lock
	 */
	long handOff(LockKeys keys, String owner, String newOwner, long leaseMillis, long fenceMillis) {
		return number(this.calls.eval("hand over lock '" + keys.name() + "'", HAND_OFF,
				List.of(keys.lock(), keys.fence()), owner, newOwner, String.valueOf(leaseMillis),
				String.valueOf(fenceMillis)));
	}

	/**
	 * Deletes the lock if {@code owner} holds it ({@code ""}: whoever holds it), publishing to
	 * waiters if one marked the lock.
	 */
	boolean release(LockKeys keys, String owner) {
		return release(keys, owner, "") != Released.NOT_HELD;
	}

	/**
	 * Deletes the lock if {@code owner} holds it, publishing to waiters whether or not one marked
	 * the lock, so that every instance's waiters compete for it.
	 */
	Released yieldToAll(LockKeys keys, String owner) {
		return release(keys, owner, "1");
	}

	private Released release(LockKeys keys, String owner, String yielding) {
		long result = number(this.calls.eval("release lock '" + keys.name() + "'", RELEASE,
				List.of(keys.lock(), keys.waiting()), owner, keys.channel(), yielding));
		return Released.values()[(int) result];
	}

	/** The outcome of a release, in the order of release.lua's results. */
	enum Released {

		/** The lock was not held by the owner: lost. */
		NOT_HELD,

		/** Deleted. */
		RELEASED,

		/** Deleted on yielding, and waiters of other instances listen for it. */
		AWAITED_ELSEWHERE

	}

	/**
	 * Sends a release without waiting for its reply: for a lock whose acquisition may or may not
	 * have happened (no reply in time), so that it is not left held for a whole lease.
	 */
	void releaseQuietly(LockKeys keys, String owner) {
		this.calls.sendQuietly(new TimedScripts.Script(RELEASE, List.of(keys.lock(), keys.waiting()), owner,
				keys.channel(), ""));
	}

	/** Keeps the lock for {@code keepMillis} more, out of reach of its owner's renewals. */
	boolean keep(LockKeys keys, String owner, long keepMillis) {
		return number(this.calls.eval("keep lock '" + keys.name() + "'", KEEP, List.of(keys.lock(), keys.waiting()),
				owner, String.valueOf(keepMillis), keys.channel())) == 1;
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
