/**
 * Measurement helpers shared by the scenarios: samples and percentiles, CPU clocks, Redis server
 * statistics, result tables.
 */
@NullMarked
package dev.baton.benchmarks.support;

import org.jspecify.annotations.NullMarked;
