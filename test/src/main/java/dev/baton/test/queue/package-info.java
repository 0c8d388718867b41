/**
 * Test helpers for Baton's delayed tasks: {@link dev.baton.test.queue.QueueClock} runs tasks due
 * in minutes or days now on Redis, and {@link dev.baton.test.queue.InMemoryDelayQueues} keeps
 * Baton's queue contract in memory, on a clock the test controls, for fast tests without Redis.
 */
@NullMarked
package dev.baton.test.queue;

import org.jspecify.annotations.NullMarked;
