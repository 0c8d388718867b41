package dev.baton.lock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Locks while Redis is down: start-up, calls that fail in bounded time, and recovery. */
class RedisLockOutageTests {

	private RedisServer server;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockManager locks;

	@AfterEach
	void stop() {
		if (this.locks != null) {
			this.locks.close();
		}
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void startsWhileRedisIsDownFailsInBoundedTimeAndWorksOnceRedisIsBack() throws Exception {
		RedisServer gone = RedisServers.startLocal();
		int port = gone.port();
		gone.close();
		this.connectionFactory = connectionFactory(port);

		this.locks = RedisLockManager.builder(this.connectionFactory).commandTimeout(Duration.ofMillis(500)).build();

		long start = System.nanoTime();
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.locks.tryAcquire("job", Duration.ZERO))
			.withMessageContaining("acquire lock 'job'")
			.withCauseInstanceOf(Exception.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

		this.server = RedisServers.startLocal(port);
		LockLease held = this.locks.tryAcquire("job", Duration.ZERO).orElseThrow();
		// Waiting works too: the waiters' subscription came up with Redis.
		CompletableFuture<Boolean> waiter = CompletableFuture
			.supplyAsync(() -> this.locks.tryAcquire("job", Duration.ofSeconds(20)).map((lease) -> {
				lease.release();
				return true;
			}).orElse(false));
		Thread.sleep(300);
		long released = System.nanoTime();
		held.release();
		assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(5));
	}

	private static LettuceConnectionFactory connectionFactory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
