package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.baton.lock.HeldLock;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.LockRequest;
import dev.baton.lock.RedisLock;
import dev.baton.support.CommandStats;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A free lock is taken with one plain {@code SET ... NX PX}, the cheapest acquisition Redis has,
 * and its fencing token is issued when the holder first asks for it, by a script that checks that
 * the holder still holds the lock: tokens still grow in the order the lock was held.
 */
@RedisTest
class FencingTokenOnDemandTests {

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
		this.managers = new TestLockManagers(connectionFactory);
	}

	@AfterEach
	void closeManagers() {
		this.managers.close();
	}

	@Test
	void takingAFreeLockIsOnePlainSetAndNoScript() {
		RedisLockManager locks = this.managers.manager();
		long setsBefore = CommandStats.calls(this.redis, "set");
		long scriptsBefore = scriptCalls();

		LockLease lease = locks.tryAcquire("free", Duration.ZERO).orElseThrow();
		RedisLock lock = locks.getLock("free-too");
		lock.lock();

		assertThat(CommandStats.calls(this.redis, "set") - setsBefore).as("plain SETs").isEqualTo(2);
		assertThat(scriptCalls() - scriptsBefore).as("script calls").isZero();
		assertThat(this.redis.getExpire("baton:lock:{free}")).isPositive();
		assertThat(this.redis.hasKey("baton:lock:{free}:fence")).as("fence before a token is asked for").isFalse();
		lease.release();
		lock.unlock();
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

	@Test
	void tokensAskedForGrowInTheOrderTheLockWasHeldAcrossManagers() {
		RedisLockManager first = this.managers.manager();
		RedisLockManager second = this.managers.manager();
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			LockLease lease = ((i % 2 == 0) ? first : second).tryAcquire("fenced", Duration.ZERO).orElseThrow();
			// Every third holder never asks: its acquisition issues no token and costs the others nothing.
			if (i % 3 != 0) {
				tokens.add(lease.fencingToken());
			}
			lease.release();
		}
		assertThat(tokens).hasSize(20).isSorted().doesNotHaveDuplicates();
		assertThat(this.redis.getExpire("baton:lock:{fenced}:fence")).isPositive();
	}

	@Test
	void tokenIsIssuedOnceAndAskingAgainCostsNothing() {
		RedisLockManager locks = this.managers.manager();
		RedisLock lock = locks.getLock("asked");
		lock.lock();
		long token = lock.getFencingToken();
		long scriptsBefore = scriptCalls();

		assertThat(lock.getFencingToken()).isEqualTo(token);
		assertThat(locks.heldLocks()).singleElement().extracting(HeldLock::fencingToken).isEqualTo(token);
		assertThat(scriptCalls()).isEqualTo(scriptsBefore);
		lock.unlock();
	}

	@Test
	void askingForTheTokenOfALockTakenBehindItsBackReportsTheLeaseLost() {
		RedisLockManager locks = this.managers.manager();
		LockLease lease = locks.tryAcquire(LockRequest.of("order:11").group("order").build()).orElseThrow();
		this.redis.opsForValue().set("baton:lock:{order:11}", "someone else");

		assertThatIllegalStateException().isThrownBy(lease::fencingToken)
			.withMessage("Lock 'order:11' has no fencing token: this lease was lost before one was asked for");
		assertThat(lease.isValid()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.managers.lostEvents.size() == 1);
		assertThat(this.managers.lostEvents).singleElement()
			.isEqualTo(new LockLostEvent("order:11", "order", 0));
		// No token was issued to a lease that did not hold the lock, and the new owner keeps it.
		assertThat(this.redis.hasKey("baton:lock:{order:11}:fence")).isFalse();
		assertThat(this.redis.opsForValue().get("baton:lock:{order:11}")).isEqualTo("someone else");
		assertThat(locks.heldLocks()).isEmpty();
	}

	@Test
	void leaseReleasedBeforeItsTokenWasAskedForHasNone() {
		RedisLockManager locks = this.managers.manager();
		LockLease lease = locks.tryAcquire("released", Duration.ZERO).orElseThrow();
		lease.release();

		assertThatIllegalStateException().isThrownBy(lease::fencingToken)
			.withMessage("Lock 'released' has no fencing token: this lease was released before one was asked for");
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
		assertThat(this.managers.lostEvents).isEmpty();
	}

	@Test
	void aWaiterGetsItsTokenWithTheAcquisition() throws Exception {
		RedisLockManager holderManager = this.managers.manager();
		RedisLockManager waiterManager = this.managers.manager();
		LockLease holder = holderManager.tryAcquire("awaited", Duration.ZERO).orElseThrow();
		long holderToken = holder.fencingToken();
		Thread releaser = new Thread(() -> {
			await().until(() -> this.redis.hasKey("baton:lock:{awaited}:waiting"));
			holder.release();
		});
		releaser.start();

		LockLease waiter = waiterManager.tryAcquire("awaited", Duration.ofSeconds(10)).orElseThrow();
		releaser.join();
		long scriptsBefore = scriptCalls();
		assertThat(waiter.fencingToken()).isGreaterThan(holderToken);
		assertThat(scriptCalls()).as("script calls to learn the waiter's token").isEqualTo(scriptsBefore);
		waiter.release();
	}

	private long scriptCalls() {
		return CommandStats.calls(this.redis, "eval", "evalsha");
	}

}
