/**
 * Lock scenarios (uncontended, contended in one JVM, contended across two JVMs) and one
 * {@link dev.baton.benchmarks.lock.LockClient} adapter per implementation.
 */
@NullMarked
package dev.baton.benchmarks.lock;

import org.jspecify.annotations.NullMarked;
