/**
 * Auto-configuration of what Baton adds to the application's Redis connection: a cap on the wait
 * between reconnect attempts, and following a Sentinel's switch of the primary.
 */
@NullMarked
package dev.baton.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
