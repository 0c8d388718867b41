package dev.baton.queue.redis;

/**
 * A payload for the tests.
 */
record Order(String number, int amount) {

}
