/**
 * Delayed tasks on Redis: schedule a payload on a {@link dev.baton.queue.DelayQueue}, and a
 * {@link dev.baton.queue.annotation.DelayedTask @DelayedTask} handler, or a manual
 * {@link dev.baton.queue.DelayQueue#poll(int) poll}, receives it when it falls due, at least once.
 */
@NullMarked
package dev.baton.queue;

import org.jspecify.annotations.NullMarked;
