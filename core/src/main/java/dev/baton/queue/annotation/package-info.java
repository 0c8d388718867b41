/**
 * The {@link dev.baton.queue.annotation.DelayedTask @DelayedTask} annotation for handler methods.
 */
@NullMarked
package dev.baton.queue.annotation;

import org.jspecify.annotations.NullMarked;
