/**
 * The service provider interface under {@link dev.baton.queue.DelayQueue}: what the
 * {@code @DelayedTask} listener container needs from a queue implementation
 * ({@link dev.baton.queue.spi.ConsumableQueue}), and what a test clock needs
 * ({@link dev.baton.queue.spi.AdvanceableQueue}). Baton's Redis queues and its in-memory test
 * double implement both; applications use {@link dev.baton.queue.DelayQueue}.
 */
@NullMarked
package dev.baton.queue.spi;

import org.jspecify.annotations.NullMarked;
