package dev.baton.acl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DeadLetterRetention;
import dev.baton.queue.Delivery;
import dev.baton.queue.NewTask;
import dev.baton.support.ConsumedQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.DirectRedis;
import dev.baton.test.AclRedisServer;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks and queues as a Redis user with exactly the ACL that {@code docs/security.md} lists, read
 * from the page: what Baton does with its default prefixes needs nothing more.
 */
class LeastPrivilegeAclTests {

	private static final Path SECURITY_PAGE = Path.of("..", "docs", "security.md");

	private static AclRedisServer redis;

	private static RedisConnectionFactory baton;

	@BeforeAll
	static void startRedis() throws IOException {
		redis = AclRedisServer.start();
		baton = redis.user("baton", documentedRules());
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void locksWaitHandOverReleaseAndKeep() throws Exception {
		try (RedisLockManager one = locks(); RedisLockManager other = locks()) {
			LockLease held = one.tryAcquire("across", Duration.ZERO).orElseThrow();
			CompletableFuture<Optional<LockLease>> waiterElsewhere = waitFor(other, "across");
			held.release();
			waiterElsewhere.get(5, TimeUnit.SECONDS).orElseThrow().release();

			LockLease first = one.tryAcquire("within", Duration.ZERO).orElseThrow();
			CompletableFuture<Optional<LockLease>> waiterHere = waitFor(one, "within");
			first.release();
			waiterHere.get(5, TimeUnit.SECONDS).orElseThrow().release();

			LockLease kept = one.tryAcquire("kept", Duration.ZERO).orElseThrow();
			CompletableFuture<Optional<LockLease>> waiterForKept = waitFor(other, "kept");
			kept.release(Duration.ofMillis(300));
			waiterForKept.get(5, TimeUnit.SECONDS).orElseThrow().release();

			assertThat(one.ping()).isPositive();
		}
	}

	@Test
	void locksWaitForReplicas() throws Exception {
		try (LocalRedisServer replica = RedisServers.startLocal("--replicaof", "127.0.0.1",
				String.valueOf(redis.server().port()))) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> DirectRedis.replicationField(redis.server(), "connected_slaves").equals("1"));
			try (RedisLockManager acknowledged = RedisLockManager.builder(baton)
				.replicaAcknowledgement(1, Duration.ofSeconds(2))
				.build()) {
				acknowledged.tryAcquire("replicated", Duration.ZERO).orElseThrow().release();
			}
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void queuesScheduleWakeClaimSettleDeadLetterAndRedrive() throws Exception {
		try (RedisDelayQueues queues = RedisDelayQueues.builder(baton, JsonMapper.builder().build())
			.deadLetterRetention((name) -> new DeadLetterRetention(10, Duration.ofDays(1)))
			.build()) {
			var queue = ConsumedQueues.of(queues.get("orders", String.class));
			CountDownLatch woken = new CountDownLatch(1);
			try (AutoCloseable wakeUps = queue.onWake(woken::countDown)) {
				queue.schedule("o-1", "first", Duration.ZERO);
				assertThat(woken.await(5, TimeUnit.SECONDS)).isTrue();
			}
			Delivery<String> delivery = queue.poll(1).get(0);
			assertThat(delivery.extendVisibility(Duration.ofMinutes(1))).isTrue();
			assertThat(delivery.retry(Duration.ZERO)).isTrue();
			assertThat(queue.poll(1).get(0).deadLetter("failed")).isTrue();
			assertThat(queue.deadLetters(10)).hasSize(1);
			assertThat(queue.redrive("o-1")).isTrue();
			assertThat(queue.poll(1).get(0).ack()).isTrue();

			assertThat(queue.scheduleAll(List.of(new NewTask<>("o-2", "second", Duration.ofHours(1)),
					new NewTask<>("o-3", "third", Duration.ofHours(1))))).containsExactly("o-2", "o-3");
			assertThat(queue.reschedule("o-2", Duration.ofHours(2))).isTrue();
			assertThat(queue.find("o-2")).isPresent();
			assertThat(queue.peek(10)).hasSize(2);
			assertThat(queue.stats()).isNotNull();
			assertThat(queue.cancel("o-3")).isTrue();
			assertThat(queue.advance(null)).isEqualTo(1);
			assertThat(queue.poll(1).get(0).deadLetter("failed again")).isTrue();
			assertThat(queue.purgeDeadLetter("o-2")).isTrue();
		}
	}

	private static CompletableFuture<Optional<LockLease>> waitFor(RedisLockManager manager, String name)
			throws InterruptedException {
		CompletableFuture<Optional<LockLease>> waiter = CompletableFuture
			.supplyAsync(() -> manager.tryAcquire(name, Duration.ofSeconds(10)));
		Thread.sleep(300);
		return waiter;
	}

	private static RedisLockManager locks() {
		return RedisLockManager.builder(baton).build();
	}

	/** The rules of the page's {@code ACL SETUSER baton} line, without {@code on} and the password. */
	private static String[] documentedRules() throws IOException {
		String line = Files.readAllLines(SECURITY_PAGE)
			.stream()
			.filter((candidate) -> candidate.startsWith("ACL SETUSER baton "))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No 'ACL SETUSER baton' line in " + SECURITY_PAGE));
		return Arrays.stream(line.split("\\s+"))
			.skip(3)
			.filter((rule) -> !rule.equals("on") && !rule.startsWith(">"))
			.toArray(String[]::new);
	}

}
