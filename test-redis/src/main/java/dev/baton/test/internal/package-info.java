/**
 * How test servers are provided: an external URL, a Testcontainers container, or a local
 * {@code redis-server} process. Not for use outside {@code baton-test}.
 */
@NullMarked
package dev.baton.test.internal;

import org.jspecify.annotations.NullMarked;
