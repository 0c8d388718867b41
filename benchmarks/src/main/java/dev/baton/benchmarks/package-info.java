/**
 * A plain-{@code main} harness that measures Baton's locks and delayed queue beside Redisson,
 * Spring Integration and raw Lettuce, against a local Redis server.
 */
@NullMarked
package dev.baton.benchmarks;

import org.jspecify.annotations.NullMarked;
