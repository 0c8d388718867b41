package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.lock.RedisLock;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Locks taken in one place and finished in another: {@link LockLease#handOver()},
 * {@link dev.baton.lock.LockManager#restore(LeaseToken)}, {@link LockLease#extend(Duration)} and
 * {@link dev.baton.lock.LockManager#releaseAll()}, with two managers standing for two processes.
 */
@RedisTest
class LeaseHandOverTests {

	private TestLockManagers managers;

	private RedisLockManager web;

	private RedisLockManager worker;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory) {
		this.managers = new TestLockManagers(connectionFactory);
		this.web = this.managers.manager((builder) -> builder.instanceName("web-1"));
		this.worker = this.managers.manager((builder) -> builder.leaseTime(Duration.ofMillis(600))
			.instanceName("worker-1"));
		this.redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterEach
	void close() {
		this.managers.close();
	}

	@Test
	void aLeaseHandedOverIsRestoredElsewhereWithItsFencingTokenAndRenewedThere() {
		LockLease taken = this.web.tryAcquire("order:1", Duration.ZERO).orElseThrow();
		long fencingToken = taken.fencingToken();

		LeaseToken token = taken.handOver();

		assertThat(taken.isValid()).isFalse();
		taken.release();
		assertThat(this.web.isLocked("order:1")).as("a lease handed over releases nothing").isTrue();
		assertThat(this.web.heldCount()).isZero();
		// In another thread, as a job would.
		LockLease restored = CompletableFuture.supplyAsync(() -> this.worker.restore(token)).join();
		assertThat(restored.isValid()).isTrue();
		assertThat(restored.fencingToken()).isEqualTo(fencingToken);
		assertThat(this.worker.holderOf("order:1")).contains("worker-1");
		// The worker's watchdog renews it with the worker's lease (600 ms).
		await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
		assertThat(restored.isValid()).isTrue();
		assertThat(pttl("order:1")).isGreaterThan(0);

		restored.release();

		assertThat(this.web.isLocked("order:1")).isFalse();
		assertThat(this.managers.lostEvents).isEmpty();
	}

	@Test
	void aTokenTravelsAsAStringAndAsJson() {
		LeaseToken token = this.web.tryAcquire("order:2", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow().handOver();
		JsonMapper json = JsonMapper.builder().build();

		LeaseToken fromString = LeaseToken.parse(token.asString());
		LeaseToken fromJson = json.readValue(json.writeValueAsString(token), LeaseToken.class);

		assertThat(fromString).isEqualTo(token);
		assertThat(fromJson).isEqualTo(token);
		assertThat(token.leaseTime()).isEqualTo(Duration.ofMinutes(5));
		LockLease restored = this.worker.restore(fromString);
		assertThat(restored.isValid()).isTrue();
		assertThat(pttl("order:2")).as("a fixed lease keeps its expiry").isBetween(200_000L, 300_000L);
		restored.release();
	}

	@Test
	void aTokenRestoredTwiceGivesTheLockToOneRestorerOnly() {
		LeaseToken token = this.web.tryAcquire("order:3", Duration.ZERO).orElseThrow().handOver();

		LockLease first = this.worker.restore(token);
		LockLease second = this.web.restore(token);

		assertThat(first.isValid()).isTrue();
		assertThat(second.isValid()).isFalse();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(second::fencingToken)
			.withMessageContaining("was not restored");
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> second.extend(Duration.ofMinutes(1)));
		second.release();
		assertThat(this.worker.holderOf("order:3")).contains("worker-1");
		first.release();
		assertThat(this.web.isLocked("order:3")).isFalse();
	}

	@Test
	void aStaleTokenNeverTouchesTheLockOfItsNewOwner() throws Exception {
		LeaseToken token = this.web.tryAcquire("order:4", Duration.ZERO, Duration.ofMillis(200)).orElseThrow()
			.handOver();
		TimeUnit.MILLISECONDS.sleep(400);
		LockLease newOwner = this.worker.tryAcquire("order:4", Duration.ZERO, Duration.ofMinutes(1)).orElseThrow();

		LockLease stale = this.web.restore(token);

		assertThat(stale.isValid()).isFalse();
		stale.release();
		assertThat(newOwner.isValid()).isTrue();
		assertThat(this.worker.holderOf("order:4")).contains("worker-1");
		assertThat(pttl("order:4")).isGreaterThan(50_000L);
		newOwner.release();
	}

	@Test
	void aForgedOrTruncatedTokenIsRefusedAndWritesNothing() {
		LockLease held = this.web.tryAcquire("order:5", Duration.ZERO).orElseThrow();
		LeaseToken real = held.handOver();
		String text = real.asString();

		assertThatIllegalArgumentException().isThrownBy(() -> LeaseToken.parse(text.substring(0, text.length() / 2)))
			.withMessageStartingWith("Not a Baton lease token")
			.withMessageNotContaining(real.owner());
		assertThatIllegalArgumentException().isThrownBy(() -> LeaseToken.parse("baton1.x.y.z.w"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LeaseToken("order:5", "web-1/short:0", real.fencingToken(), null))
			.withMessageContaining("128 bits");
		LeaseToken forged = new LeaseToken("order:5", LeaseToken.newOwner("web-1"), real.fencingToken(), null);
		assertThat(this.worker.restore(forged).isValid()).isFalse();

		assertThat(this.worker.restore(real).isValid()).as("the real token still works").isTrue();
	}

	@Test
	void theSecretStaysOutOfTextsThatReachLogs() {
		LeaseToken token = this.web.tryAcquire("order:6", Duration.ZERO).orElseThrow().handOver();
		LockLease restored = this.worker.restore(token);
		LockLease again = this.worker.restore(token);

		assertThat(token.toString()).doesNotContain(token.owner()).contains("#" + token.fingerprint());
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(again::fencingToken)
			.withMessageNotContaining(token.owner());
		assertThat(again.toString()).doesNotContain(token.owner());
		restored.release();
	}

	@Test
	void extendKeepsALeaseOfFixedTimePastItsLeaseAndNeverShortensIt() throws Exception {
		LockLease lease = this.web.tryAcquire("order:7", Duration.ZERO, Duration.ofMillis(300)).orElseThrow();

		lease.extend(Duration.ofSeconds(3));
		TimeUnit.MILLISECONDS.sleep(600);

		assertThat(lease.isValid()).isTrue();
		assertThat(pttl("order:7")).isBetween(1_000L, 3_000L);
		lease.extend(Duration.ofMillis(10));
		assertThat(pttl("order:7")).as("never shortened").isGreaterThan(1_000L);
		lease.release();
	}

	@Test
	void theWatchdogDoesNotUndoALongerExtension() throws Exception {
		LockLease lease = this.worker.tryAcquire("order:8", Duration.ZERO).orElseThrow();

		lease.extend(Duration.ofSeconds(5));
		// Renewed every 200 ms with a lease of 600 ms meanwhile.
		TimeUnit.MILLISECONDS.sleep(1_000);

		assertThat(pttl("order:8")).isGreaterThan(3_000L);
		lease.release();
	}

	@Test
	void extendingALostLeaseFailsAndReportsTheLoss() throws Exception {
		LockLease lease = this.web.tryAcquire("order:9", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		long fencingToken = lease.fencingToken();
		TimeUnit.MILLISECONDS.sleep(300);

		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
			.withMessageContaining("order:9");

		assertThat(lease.isValid()).isFalse();
		// Reported on a thread of its own.
		await().untilAsserted(() -> assertThat(this.managers.lostEvents)
			.extracting(LockLostEvent::name, LockLostEvent::fencingToken)
			.containsExactly(tuple("order:9", fencingToken)));
		assertThat(this.web.isLocked("order:9")).isFalse();
	}

	@Test
	void releaseAllFreesEveryLockOfThisInstanceAndTellsTheirHolders() throws Exception {
		LockLease lease = this.web.tryAcquire("all:1", Duration.ZERO).orElseThrow();
		LockLease fixed = this.web.tryAcquire("all:2", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		RedisLock threadOwned = this.web.getLock("all:3");
		assertThat(threadOwned.tryLock(0, TimeUnit.SECONDS)).isTrue();
		LockLease others = this.worker.tryAcquire("all:4", Duration.ZERO).orElseThrow();

		int released = this.web.releaseAll();

		assertThat(released).isEqualTo(3);
		assertThat(List.of("all:1", "all:2", "all:3")).noneMatch(this.web::isLocked);
		assertThat(lease.isValid()).isFalse();
		assertThat(fixed.isValid()).isFalse();
		assertThat(threadOwned.isHeldByCurrentThread()).isFalse();
		await().untilAsserted(() -> assertThat(this.managers.lostEvents).extracting(LockLostEvent::name)
			.containsExactlyInAnyOrder("all:1", "all:2", "all:3"));
		assertThat(others.isValid()).isTrue();
		assertThat(this.web.tryAcquire("all:1", Duration.ZERO)).as("free for others at once").isPresent();
		assertThat(this.web.releaseAll()).isEqualTo(1);
		lease.release();
		others.release();
	}

	@Test
	void aLeaseLostBeforeItHadAFencingTokenCannotBeHandedOver() throws Exception {
		LockLease lease = this.web.tryAcquire("order:10", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		TimeUnit.MILLISECONDS.sleep(300);

		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::handOver).withMessageContaining("order:10");
	}

	@Test
	void releaseAllCountsOnlyTheLocksItFreed() throws Exception {
		LockLease ranOut = this.web.tryAcquire("all:5", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		LockLease held = this.web.tryAcquire("all:6", Duration.ZERO).orElseThrow();
		TimeUnit.MILLISECONDS.sleep(300);
		LockLease newOwner = this.worker.tryAcquire("all:5", Duration.ZERO, Duration.ofMinutes(1)).orElseThrow();

		assertThat(this.web.releaseAll()).isEqualTo(1);

		assertThat(ranOut.isValid()).isFalse();
		assertThat(held.isValid()).isFalse();
		assertThat(newOwner.isValid()).isTrue();
		assertThat(this.worker.holderOf("all:5")).contains("worker-1");
		newOwner.release();
	}

	private long pttl(String name) {
		return this.redis.getExpire("baton:lock:{" + name + "}", TimeUnit.MILLISECONDS);
	}

}
