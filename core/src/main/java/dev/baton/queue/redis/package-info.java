/**
 * The Redis implementation of delay queues: {@link dev.baton.queue.redis.RedisDelayQueues}
 * keeps each queue in a few keys under one hash tag and changes them only through Lua scripts
 * that read the time from the Redis server.
 */
@NullMarked
package dev.baton.queue.redis;

import org.jspecify.annotations.NullMarked;
