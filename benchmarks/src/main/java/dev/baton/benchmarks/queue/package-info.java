/**
 * Delayed-queue scenarios (enqueue, drain, lateness, idle cost) and one
 * {@link dev.baton.benchmarks.queue.QueueClient} adapter per implementation.
 */
@NullMarked
package dev.baton.benchmarks.queue;

import org.jspecify.annotations.NullMarked;
