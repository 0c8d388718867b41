/**
 * The {@link dev.baton.queue.annotation.DelayedTask @DelayedTask} annotation for handler methods,
 * and {@link dev.baton.queue.annotation.EnableDelayedTasks @EnableDelayedTasks}, which switches
 * handlers on in an application without Spring Boot.
 */
@NullMarked
package dev.baton.queue.annotation;

import org.jspecify.annotations.NullMarked;
