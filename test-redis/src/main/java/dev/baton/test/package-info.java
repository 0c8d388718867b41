/**
 * A real Redis server for tests: {@link dev.baton.test.RedisTest} gives a JUnit Jupiter test
 * class a running server (from {@code BATON_TEST_REDIS_URL}, Testcontainers, or a local
 * {@code redis-server} process) and injects connections to it; Spring tests annotated with it
 * get {@code spring.data.redis.*} pointed at that server.
 */
@NullMarked
package dev.baton.test;

import org.jspecify.annotations.NullMarked;
