package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pins lock format 1 as docs/upgrading.md describes it, which every build reads and writes: a later
 * format uses new key names, never a new type or shape under these (an older build would meet
 * {@code WRONGTYPE} or misread them). A change that fails here needs a new format, not an edit.
 */
@RedisTest
class LockStorageFormatTests {

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
	void theKeysOfALockHaveTheShapesOfFormatOne() throws InterruptedException {
		RedisLockManager holder = this.managers.manager((builder) -> builder.instanceName("holder-1"));
		RedisLockManager waiter = this.managers.manager((builder) -> builder.instanceName("waiter-1"));
		LockLease lease = holder.tryAcquire("format", Duration.ZERO).orElseThrow();
		long token = lease.fencingToken();
		Thread waiting = new Thread(() -> waiter.tryAcquire("format", Duration.ofSeconds(10)).ifPresent(LockLease::release));
		waiting.start();
		await().until(() -> this.redis.hasKey("baton:lock:{format}:waiting"));

		assertThat(this.redis.type("baton:lock:{format}")).isEqualTo(DataType.STRING);
		assertThat(this.redis.opsForValue().get("baton:lock:{format}")).matches("holder-1/[0-9a-f-]+:\\d+");
		assertThat(this.redis.type("baton:lock:{format}:fence")).isEqualTo(DataType.STRING);
		assertThat(Long.parseLong(this.redis.opsForValue().get("baton:lock:{format}:fence"))).isGreaterThanOrEqualTo(token);
		assertThat(this.redis.type("baton:lock:{format}:waiting")).isEqualTo(DataType.HASH);
		assertThat(this.redis.<String, String>opsForHash().keys("baton:lock:{format}:waiting"))
			.singleElement()
			.asString()
			.startsWith("waiter-1/");

		lease.release();
		waiting.join();
	}

}
