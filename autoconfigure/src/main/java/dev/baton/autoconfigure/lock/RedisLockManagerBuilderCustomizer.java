package dev.baton.autoconfigure.lock;

import dev.baton.lock.redis.RedisLockManager;

/**
 * Callback to customize the auto-configured {@link RedisLockManager} before it is built, e.g.
 * to add a lock-lost listener.
 */
@FunctionalInterface
public interface RedisLockManagerBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder, with the {@code baton.lock.*} properties applied
	 */
	void customize(RedisLockManager.Builder builder);

}
