package dev.baton.harness;

import org.jspecify.annotations.Nullable;

/**
 * A broken invariant.
 *
 * @param atMillis when it happened, from the start of the run
 * @param subject the lock or task it concerns
 * @param invariant which promise it breaks, as named in {@code docs/guarantees.md}
 * @param text what happened
 * @param knownDefect the {@link KnownDefects known defect} it shows, or {@code null} if it is new
 */
record Violation(long atMillis, String subject, String invariant, String text, @Nullable String knownDefect) {

}
