/**
 * Spring Boot auto-configuration for Baton: {@code lock} configures the {@code LockManager} and
 * {@code @DistributedLock}, {@code queue} the delayed-task queues and {@code @DelayedTask}
 * listener containers.
 */
@NullMarked
package dev.baton.autoconfigure;

import org.jspecify.annotations.NullMarked;
