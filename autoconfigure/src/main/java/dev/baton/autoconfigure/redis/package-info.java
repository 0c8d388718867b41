/**
 * Auto-configuration of what Baton adds to the application's Redis connection: following a
 * Sentinel's switch of the primary.
 */
@NullMarked
package dev.baton.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
