/**
 * What the listener container needs from a queue implementation, and what both share; not for
 * applications.
 */
@NullMarked
package dev.baton.queue.internal;

import org.jspecify.annotations.NullMarked;
