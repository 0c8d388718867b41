package dev.baton.autoconfigure.queue;

import java.util.Properties;

import dev.baton.internal.BatonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Warns at start-up when Redis may evict keys: under any {@code maxmemory-policy} but
 * {@code noeviction}, Redis deletes keys when memory runs short, and queued tasks vanish without
 * a trace. Reads {@code INFO memory}, which managed services that disable {@code CONFIG} still
 * answer; runs on a thread of its own so that start-up never waits for Redis. When Redis does not
 * answer it (a user whose ACL denies {@code INFO}, or Redis down at start-up), says once what to
 * check instead.
 */
final class EvictionPolicyCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(EvictionPolicyCheck.class);

	private final RedisConnectionFactory connectionFactory;

	EvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		BatonThreads.PLATFORM.start("baton-eviction-policy-check", this::check);
	}

	/**
	 * Reads the policy and warns unless it is {@code noeviction}.
	 * @return the policy, or {@code null} if Redis could not tell
	 */
	@Nullable String check() {
		try {
			Properties memory = new StringRedisTemplate(this.connectionFactory)
				.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("memory"));
			String policy = (memory != null) ? memory.getProperty("maxmemory_policy") : null;
			if (policy != null && !policy.equals("noeviction")) {
				logger.warn("Redis runs with maxmemory-policy " + policy + ": when memory runs short it evicts keys, "
						+ "and delayed tasks are lost without a trace. Set maxmemory-policy noeviction on the "
						+ "Redis that holds Baton's queues (see the guarantees in Baton's user guide).");
			}
			return policy;
		}
		catch (RuntimeException ex) {
			// Said once, as the check runs once: an ACL that denies INFO (-@dangerous) hides the risk.
			logger.warn("Could not read Redis's maxmemory-policy (" + NestedExceptionUtils.getMostSpecificCause(ex).getMessage()
					+ "): check that the Redis holding Baton's queues runs with maxmemory-policy noeviction. Baton "
					+ "reads it with INFO memory; an ACL that denies INFO to Baton's user hides it, and +info allows it.");
			logger.debug("Reading Redis's maxmemory-policy failed", ex);
			return null;
		}
	}

}
