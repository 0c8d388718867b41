/**
 * Spring Boot Actuator support: the {@code baton} endpoint (queues, dead letters, held locks, and
 * operations to redrive, purge and cancel) and the {@code baton} info contributor (Baton and
 * Redis server versions).
 */
@NullMarked
package dev.baton.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
