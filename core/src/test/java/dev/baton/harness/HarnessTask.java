package dev.baton.harness;

/**
 * A task's payload: how its handler behaves.
 *
 * @param behaviour {@code fast}, {@code slow}, {@code stubborn} (slow, and goes on when
 * interrupted, as a handler stuck in I/O that ignores interrupts does, then succeeds),
 * {@code flaky} (fails its first attempts) or {@code failing} (fails every attempt, so it is
 * dead-lettered)
 * @param sleepMillis how long a slow or stubborn handler takes: up to 1.2 s, or for one in four
 * 2.5 to 6 s, longer than the visibility timeout and the shutdown timeout
 * @param failures how many attempts a flaky handler fails
 */
record HarnessTask(String behaviour, long sleepMillis, int failures) {

}
