/**
 * Test helpers for Baton's delayed tasks: {@link dev.baton.test.queue.QueueClock} runs tasks due
 * in minutes or days now.
 */
@NullMarked
package dev.baton.test.queue;

import org.jspecify.annotations.NullMarked;
