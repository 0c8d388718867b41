package dev.baton.acl;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.Delivery;
import dev.baton.support.ConsumedQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.AclRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Baton as a Redis user restricted to exactly its prefixes, {@code ~app1:* &app1:*}: every key and
 * channel it uses must derive from {@code app1:}.
 */
class PrefixedAclUserTests {

	private static AclRedisServer redis;

	@BeforeAll
	static void startRedis() {
		redis = AclRedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void waitingForALockUsesOnlyChannelsUnderThePrefix() throws Exception {
		RedisConnectionFactory app1 = redis.user("app1-locks", "~app1:*", "&app1:*", "+@all");
		try (RedisLockManager holderInstance = locks(app1); RedisLockManager waiterInstance = locks(app1)) {
			LockLease held = holderInstance.tryAcquire("stock", Duration.ZERO).orElseThrow();
			CompletableFuture<LockLease> waiter = CompletableFuture
				.supplyAsync(() -> waiterInstance.tryAcquire("stock", Duration.ofSeconds(10)).orElseThrow());
			Thread.sleep(300);

			held.release();

			try (LockLease handedOver = waiter.get(5, TimeUnit.SECONDS)) {
				assertThat(handedOver.isValid()).isTrue();
			}
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void queueRunsAndWakesUnderThePrefix() throws Exception {
		RedisConnectionFactory app1 = redis.user("app1-queues", "~app1:*", "&app1:*", "+@all");
		try (RedisDelayQueues queues = RedisDelayQueues.builder(app1, JsonMapper.builder().build())
			.keyPrefix("app1:q:")
			.build()) {
			var queue = ConsumedQueues.of(queues.get("orders", String.class));
			CountDownLatch woken = new CountDownLatch(1);
			try (AutoCloseable wakeUps = queue.onWake(woken::countDown)) {
				queue.schedule("o-1", "payload", Duration.ZERO);
				assertThat(woken.await(5, TimeUnit.SECONDS)).isTrue();
			}
			Delivery<String> delivery = queue.poll(1).get(0);

			assertThat(delivery.ack()).isTrue();
		}
	}

	@Test
	void deniedSubscriptionNamesTheDeniedChannelAndKeepsRedisMessage() {
		RedisConnectionFactory noChannels = redis.user("app1-no-channels", "~app1:*", "+@all");
		try (RedisLockManager holderInstance = locks(noChannels); RedisLockManager waiterInstance = locks(noChannels)) {
			holderInstance.tryAcquire("prices", Duration.ZERO).orElseThrow();

			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> waiterInstance.tryAcquire("prices", Duration.ofSeconds(2)))
				.withMessageContaining("app1:lock:waiters-anchor")
				.withMessageContaining("NOPERM");
		}
	}

	private static RedisLockManager locks(RedisConnectionFactory connectionFactory) {
		return RedisLockManager.builder(connectionFactory).keyPrefix("app1:lock:").build();
	}

}
