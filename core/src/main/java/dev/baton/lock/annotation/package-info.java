/**
 * The {@link dev.baton.lock.annotation.DistributedLock @DistributedLock} annotation for methods
 * that must not run concurrently across instances.
 */
@NullMarked
package dev.baton.lock.annotation;

import org.jspecify.annotations.NullMarked;
