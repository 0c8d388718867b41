package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.RedisLock;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A lock that is not acquired in time is explained by the instance that holds it, as that
 * instance's lock manager is named.
 */
@RedisTest
class LockHolderTests {

	private TestLockManagers managers;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.managers = new TestLockManagers(connectionFactory);
		this.redis = redis;
	}

	@AfterEach
	void closeManagers() {
		this.managers.close();
	}

	@Test
	void notAcquiredNamesTheInstanceThatHoldsTheLock() {
		RedisLockManager hostA = this.managers.manager((builder) -> builder.instanceName("host-a:1234"));
		RedisLockManager hostB = this.managers.manager((builder) -> builder.instanceName("host-b:5678"));
		LockLease held = hostA.tryAcquire("orders:42", Duration.ZERO).orElseThrow();

		assertThatExceptionOfType(LockNotAcquiredException.class)
			.isThrownBy(() -> hostB.withLock("orders:42", Duration.ofMillis(200), () -> "never"))
			.withMessage("Lock 'orders:42' was not acquired within 200 ms; held by instance 'host-a:1234'")
			.satisfies((ex) -> assertThat(ex.getHolder()).hasValue("host-a:1234"));
		held.release();
	}

	@Test
	void holderOfAThreadOwnedLockIsNamedToo() {
		RedisLockManager hostA = this.managers.manager((builder) -> builder.instanceName("host-a:1234"));
		RedisLock lock = hostA.getLock("orders:43");
		lock.lock();
		try {
			assertThat(this.managers.manager().holderOf("orders:43")).hasValue("host-a:1234");
		}
		finally {
			lock.unlock();
		}
		assertThat(hostA.holderOf("orders:43")).as("once released").isEmpty();
	}

	@Test
	void defaultInstanceNameIsHostAndPid() {
		this.managers.manager().tryAcquire("orders:44", Duration.ZERO).orElseThrow();

		assertThat(this.managers.manager().holderOf("orders:44")).hasValueSatisfying(
				// A host name before the pid, however short (the CI machine is called "vm").
				(holder) -> assertThat(holder).matches(".+:" + ProcessHandle.current().pid()));
	}

	@Test
	void holderWithoutAnInstanceNameIsUnknown() {
		// As an earlier Baton, or anything else, wrote it.
		this.redis.opsForValue().set("baton:lock:{orders:45}", "0b9d7c8e-5c1e-4a4e-9a57-4d6f1b1b6a39:1");

		assertThatExceptionOfType(LockNotAcquiredException.class)
			.isThrownBy(() -> this.managers.manager().withLock("orders:45", Duration.ZERO, () -> "never"))
			.withMessage("Lock 'orders:45' was not acquired within 0 ms")
			.satisfies((ex) -> assertThat(ex.getHolder()).isEmpty());
	}

	@Test
	void holderThatCouldForgeALogLineIsNotShown() {
		this.redis.opsForValue().set("baton:lock:{orders:46}", "host\nWARN forged/uuid:1");

		assertThat(this.managers.manager().holderOf("orders:46")).isEmpty();
	}

	@Test
	void instanceNameIsCheckedWhereItIsSet() {
		RedisLockManager.Builder builder = RedisLockManager.builder(this.managers.connectionFactory());

		assertThatIllegalArgumentException().isThrownBy(() -> builder.instanceName("host\r\nforged"))
			.withMessageContaining("U+000D");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.instanceName("h".repeat(129)))
			.withMessageContaining("maximum of 128");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.instanceName(" "));
	}

}
