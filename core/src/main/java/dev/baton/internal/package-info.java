/**
 * Helpers shared by Baton's packages; not for applications.
 */
@NullMarked
package dev.baton.internal;

import org.jspecify.annotations.NullMarked;
