/**
 * What the listener container needs from a queue implementation; not for applications.
 */
@NullMarked
package dev.baton.queue.internal;

import org.jspecify.annotations.NullMarked;
