/**
 * Micrometer observations of Baton: lock acquisitions, task scheduling and task handling. Their
 * timers are Baton's {@code baton.lock.acquire}, {@code baton.queue.schedule} and
 * {@code baton.queue.handle} meters, and with Micrometer Tracing they are spans; a task carries
 * the trace context of its scheduling to its handling. Each has a convention that an application
 * can replace, as with Spring's own observations.
 */
@NullMarked
package dev.baton.observation;

import org.jspecify.annotations.NullMarked;
