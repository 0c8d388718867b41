/**
 * Baton: distributed locks ({@code dev.baton.lock}) and delayed tasks ({@code dev.baton.queue})
 * on Redis.
 */
@NullMarked
package dev.baton;

import org.jspecify.annotations.NullMarked;
