package dev.baton.acl;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.ScheduledTask;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.AclRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * Baton as a user that may use its keys but no channel (Redis 7's default
 * {@code acl-pubsub-default resetchannels}): every call that publishes fails, and a call that
 * reports failure must have had no effect, so that retrying it cannot do it twice. The tasks and
 * locks are set up by an unrestricted instance on the same keys.
 */
class ChannelDeniedAclUserTests {

	private static AclRedisServer redis;

	private static RedisConnectionFactory keysOnly;

	private RedisDelayQueues adminQueues;

	private RedisDelayQueues restrictedQueues;

	private DelayQueue<String> admin;

	private DelayQueue<String> restricted;

	@BeforeAll
	static void startRedis() {
		redis = AclRedisServer.start();
		keysOnly = redis.user("keys-only", "~app1:*", "+@all");
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@BeforeEach
	@SuppressWarnings("unchecked")
	void createQueues() {
		new StringRedisTemplate(redis.admin()).execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
		this.adminQueues = queues(redis.admin());
		this.restrictedQueues = queues(keysOnly);
		this.admin = this.adminQueues.get("orders", String.class);
		this.restricted = this.restrictedQueues.get("orders", String.class);
	}

	@AfterEach
	void closeQueues() {
		this.adminQueues.close();
		this.restrictedQueues.close();
	}

	@Test
	void scheduleThatFailsStoresNothing() {
		assertThatRuntimeException().isThrownBy(() -> this.restricted.schedule("o-1", "payload", Duration.ZERO))
			.withMessageContaining("publish");

		assertThat(this.admin.find("o-1")).isEmpty();
	}

	@Test
	void rescheduleThatFailsLeavesTheDueTime() {
		this.admin.schedule("o-1", "payload", Duration.ofHours(1));
		Instant dueAt = this.admin.find("o-1").orElseThrow().dueAt();

		assertThatRuntimeException().isThrownBy(() -> this.restricted.reschedule("o-1", Duration.ZERO));

		assertThat(this.admin.find("o-1")).map(ScheduledTask::dueAt).contains(dueAt);
	}

	@Test
	void redriveThatFailsLeavesTheDeadLetter() {
		this.admin.schedule("o-1", "payload", Duration.ZERO);
		this.admin.poll(1).get(0).deadLetter("broken");

		assertThatRuntimeException().isThrownBy(() -> this.restricted.redrive("o-1"));

		assertThat(this.admin.deadLetters(10)).hasSize(1);
		assertThat(this.admin.find("o-1")).isEmpty();
	}

	@Test
	void retryThatFailsLeavesTheTaskInFlight() {
		this.admin.schedule("o-1", "payload", Duration.ZERO);
		Delivery<String> delivery = this.restricted.poll(1).get(0);

		assertThatRuntimeException().isThrownBy(() -> delivery.retry(Duration.ZERO));

		assertThat(this.admin.find("o-1")).map(ScheduledTask::inFlight).contains(true);
		assertThat(delivery.ack()).isTrue();
	}

	@Test
	void advanceThatFailsLeavesTheDueTimes() {
		this.admin.schedule("o-1", "payload", Duration.ofHours(1));
		Instant dueAt = this.admin.find("o-1").orElseThrow().dueAt();

		assertThatRuntimeException().isThrownBy(() -> ((AdvanceableQueue) this.restricted).advance(Duration.ofHours(1)));

		assertThat(this.admin.find("o-1")).map(ScheduledTask::dueAt).contains(dueAt);
	}

	@Test
	void releaseThatFailsLeavesTheLockHeld() throws Exception {
		try (RedisLockManager restrictedLocks = locks(keysOnly); RedisLockManager adminLocks = locks(redis.admin())) {
			LockLease lease = restrictedLocks.tryAcquire("stock", Duration.ZERO).orElseThrow();
			awaitedElsewhere(adminLocks, "stock");

			assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lease::release)
				.withMessageContaining("publish");

			assertThat(lockTtlMillis("stock")).isGreaterThan(10_000);
		}
	}

	@Test
	void keepThatFailsLeavesTheLease() throws Exception {
		try (RedisLockManager restrictedLocks = locks(keysOnly); RedisLockManager adminLocks = locks(redis.admin())) {
			LockLease lease = restrictedLocks.tryAcquire("prices", Duration.ZERO).orElseThrow();
			awaitedElsewhere(adminLocks, "prices");

			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> lease.release(Duration.ofMillis(500)));

			assertThat(lockTtlMillis("prices")).isGreaterThan(10_000);
		}
	}

	/** Another instance waits for the lock, so that its release or keep publishes. */
	private static void awaitedElsewhere(RedisLockManager other, String name) throws InterruptedException {
		CompletableFuture.supplyAsync(() -> other.tryAcquire(name, Duration.ofSeconds(2)));
		Thread.sleep(300);
	}

	/** The remaining lease of a lock in Redis, in ms; negative when there is no lock. */
	private static Long lockTtlMillis(String name) {
		return new StringRedisTemplate(redis.admin()).getExpire("app1:lock:{" + name + "}", TimeUnit.MILLISECONDS);
	}

	private static RedisDelayQueues queues(RedisConnectionFactory connectionFactory) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).keyPrefix("app1:q:").build();
	}

	private static RedisLockManager locks(RedisConnectionFactory connectionFactory) {
		return RedisLockManager.builder(connectionFactory).keyPrefix("app1:lock:").build();
	}

}
