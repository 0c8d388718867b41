package dev.baton.lock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.baton.internal.LuaScripts;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/** The lock's Redis commands: each one atomic, one script or one command. */
final class LockCommands {

	private static final RedisScript<List<?>> ACQUIRE = fencingScript("acquire.lua", List.class);

	private static final RedisScript<Long> HAND_OFF = fencingScript("handoff.lua", Long.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> EXTEND = script("extend.lua", Long.class);

	private static final RedisScript<Long> KEEP = script("keep.lua", Long.class);

	private static final long UNKNOWN_LEASE_MILLIS = 1000;

	private final StringRedisTemplate redis;

	LockCommands(RedisConnectionFactory connectionFactory) {
		this.redis = new StringRedisTemplate(connectionFactory);
		// Without this the template wraps each connection in a reflective proxy, on every call.
		this.redis.setExposeConnection(true);
	}

	/**
	 * Takes the lock if it is free.
	 * @param waitingMillis how long to mark the lock as awaited if it is taken, 0 when the caller does not wait
	 * @return the fencing token (positive), or minus the holder's remaining lease in ms (at most 0)
	 */
	long acquire(LockKeys keys, String owner, long leaseMillis, long fenceMillis, long waitingMillis) {
		List<?> result = this.redis.execute(ACQUIRE, List.of(keys.lock(), keys.fence(), keys.waiting()), owner,
				String.valueOf(leaseMillis), String.valueOf(fenceMillis), String.valueOf(waitingMillis));
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
		return this.redis.execute(HAND_OFF, List.of(keys.lock(), keys.fence()), owner, newOwner,
				String.valueOf(leaseMillis), String.valueOf(fenceMillis));
	}

	/**
	 * Deletes the lock if {@code owner} holds it ({@code ""}: whoever holds it), publishing to
	 * waiters if one marked the lock.
	 */
	boolean release(LockKeys keys, String owner) {
		return this.redis.execute(RELEASE, List.of(keys.lock(), keys.waiting()), owner, keys.channel(), "")
				!= Released.NOT_HELD.ordinal();
	}

	/**
	 * Deletes the lock if {@code owner} holds it, publishing to waiters whether or not one marked
	 * the lock, so that every instance's waiters compete for it.
	 */
	Released yieldToAll(LockKeys keys, String owner) {
		long result = this.redis.execute(RELEASE, List.of(keys.lock(), keys.waiting()), owner, keys.channel(), "1");
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

	/** Keeps the lock for {@code keepMillis} more, out of reach of its owner's renewals. */
	boolean keep(LockKeys keys, String owner, long keepMillis) {
		return this.redis.execute(KEEP, List.of(keys.lock(), keys.waiting()), owner, String.valueOf(keepMillis),
				keys.channel()) == 1;
	}

	/**
	 * Extends many locks in one pipeline.
	 * @return for each lock in order, whether its owner still held it
	 */
	List<Boolean> extendAll(List<LockKeys> keys, List<String> owners, long leaseMillis) {
		byte[] script = EXTEND.getScriptAsString().getBytes(StandardCharsets.UTF_8);
		byte[] lease = bytes(String.valueOf(leaseMillis));
		List<Object> results = this.redis.executePipelined((RedisCallback<?>) (connection) -> {
			for (int i = 0; i < keys.size(); i++) {
				connection.scriptingCommands()
					.eval(script, ReturnType.INTEGER, 1, bytes(keys.get(i).lock()), bytes(owners.get(i)), lease);
			}
			return null;
		});
		List<Boolean> held = new ArrayList<>(results.size());
		for (Object result : results) {
			held.add(((Number) result).longValue() == 1);
		}
		return held;
	}

	boolean exists(LockKeys keys) {
		return Boolean.TRUE.equals(this.redis.hasKey(keys.lock()));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
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
