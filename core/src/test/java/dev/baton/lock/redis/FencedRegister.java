package dev.baton.lock.redis;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The resource a lock protects, kept in Redis as docs/locks.md asks of one: a value that takes a
 * write only with a fencing token greater than every token it took before, compared and written
 * in one script, so that no write can slip in between.
 */
final class FencedRegister {

	// Tokens are microseconds of the Redis clock (about 2^51), exact as Lua numbers (doubles, 2^53).
	private static final RedisScript<Long> WRITE = RedisScript.of("""
			-- KEYS[1] the register, a hash of token and value; ARGV[1] fencing token, ARGV[2] value
			-- Returns 1 when written, 0 when refused: the token is not above the last one taken.
			local last = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
			if tonumber(ARGV[1]) <= last then
				return 0
			end
			redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String key;

	FencedRegister(StringRedisTemplate redis, String key) {
		this.redis = redis;
		this.key = key;
	}

	String key() {
		return this.key;
	}

	/** Writes {@code value} if {@code fencingToken} is above the last token written; returns whether it did. */
	boolean write(long fencingToken, String value) {
		return this.redis.execute(WRITE, List.of(this.key), Long.toString(fencingToken), value) == 1;
	}

	/** The value last written, or {@code null}. */
	String value() {
		return (String) this.redis.opsForHash().get(this.key, "value");
	}

}
