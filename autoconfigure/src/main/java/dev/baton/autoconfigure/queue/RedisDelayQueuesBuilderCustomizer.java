package dev.baton.autoconfigure.queue;

import dev.baton.queue.redis.RedisDelayQueues;

/**
 * Callback to customize the auto-configured {@link RedisDelayQueues} before they are built, e.g.
 * to set a dead-letter retention per queue in code.
 */
@FunctionalInterface
public interface RedisDelayQueuesBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder, with the {@code baton.queue.*} properties applied
	 */
	void customize(RedisDelayQueues.Builder builder);

}
