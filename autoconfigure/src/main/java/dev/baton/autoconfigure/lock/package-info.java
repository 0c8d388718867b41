/**
 * Auto-configuration of Baton's distributed locks.
 */
@NullMarked
package dev.baton.autoconfigure.lock;

import org.jspecify.annotations.NullMarked;
