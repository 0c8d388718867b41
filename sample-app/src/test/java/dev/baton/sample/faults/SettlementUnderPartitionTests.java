package dev.baton.sample.faults;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.awaitility.Awaitility.await;

/** The example of docs/testing.md, "Testing your code under Redis faults", run against the sample. */
@SpringBootTest(properties = "baton.lock.lease-time=3s")
@DirtiesContext
class SettlementUnderPartitionTests {

    static LocalRedisServer redis = RedisServers.startLocal();

    static RedisProxy proxy = RedisProxy.to(redis);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", proxy::host);
        registry.add("spring.data.redis.port", proxy::port);
    }

    @AfterAll
    static void stop() {
        proxy.close();
        redis.close();
    }

    @Autowired
    LockManager locks;

    @Test
    void holderLearnsThatItLostTheLock() {
        LockLease lease = locks.tryAcquire("settlement:1", Duration.ZERO).orElseThrow();
        proxy.blackHole();
        await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
        proxy.heal();
    }

}
