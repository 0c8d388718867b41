/**
 * Auto-configuration of delay queues and {@code @DelayedTask} listener containers under
 * {@code baton.queue.*}.
 */
@NullMarked
package dev.baton.autoconfigure.queue;

import org.jspecify.annotations.NullMarked;
