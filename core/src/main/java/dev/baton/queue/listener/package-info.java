/**
 * The listener container behind {@link dev.baton.queue.annotation.DelayedTask @DelayedTask}:
 * {@link dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor} discovers handler
 * methods and turns each into a {@link dev.baton.queue.listener.DelayedTaskEndpoint}; the
 * {@link dev.baton.queue.listener.DelayedTaskListenerRegistry} runs one
 * {@link dev.baton.queue.listener.DelayedTaskListenerContainer} per endpoint.
 */
@NullMarked
package dev.baton.queue.listener;

import org.jspecify.annotations.NullMarked;
