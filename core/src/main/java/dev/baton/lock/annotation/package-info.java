/**
 * The {@link dev.baton.lock.annotation.DistributedLock @DistributedLock} annotation for methods
 * that must not run concurrently across instances, the advisor that applies it, and
 * {@link dev.baton.lock.annotation.EnableDistributedLocks @EnableDistributedLocks}, which switches
 * it on in an application without Spring Boot.
 */
@NullMarked
package dev.baton.lock.annotation;

import org.jspecify.annotations.NullMarked;
