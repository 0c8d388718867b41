package dev.baton.test;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RedisProxyTests {

	private LocalRedisServer server;

	private RedisProxy proxy;

	private RedisClient client;

	@BeforeEach
	void start() {
		this.server = RedisServers.startLocal("--appendonly", "yes");
		this.proxy = RedisProxy.to(this.server);
		this.client = RedisClient.create(RedisURI.builder()
			.withHost(this.proxy.host())
			.withPort(this.proxy.port())
			.withTimeout(Duration.ofMillis(500))
			.build());
	}

	@AfterEach
	void stop() {
		this.client.shutdown();
		this.proxy.close();
		this.server.close();
	}

	@Test
	void forwardsAddsLatencyAndHeals() {
		try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
			connection.sync().set("k", "v");
			assertThat(connection.sync().get("k")).isEqualTo("v");

			this.proxy.latency(Duration.ofMillis(100));
			long start = System.nanoTime();
			connection.sync().ping();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));

			this.proxy.heal();
			start = System.nanoTime();
			connection.sync().ping();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100));
		}
	}

	@Test
	void blackHoleTimesCommandsOutAndHealingReconnectsCleanly() {
		try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
			connection.sync().set("k", "v");

			this.proxy.blackHole();
			assertThatExceptionOfType(RedisCommandTimeoutException.class).isThrownBy(() -> connection.sync().get("k"));
			assertThat(connection.isOpen()).as("the socket stays open in a black hole").isTrue();

			this.proxy.heal();
			assertThat(connection.sync().get("k")).isEqualTo("v");
		}
	}

	@Test
	void cutEndsConnectionsAndRefusesNewOnesUntilHealed() {
		StatefulRedisConnection<String, String> connection = this.client.connect();
		connection.sync().ping();

		this.proxy.cut();
		assertThatExceptionOfType(RedisException.class).isThrownBy(() -> connection.sync().ping());
		assertThatExceptionOfType(RedisConnectionException.class).isThrownBy(() -> this.client.connect().sync().ping());

		this.proxy.heal();
		try (StatefulRedisConnection<String, String> fresh = this.client.connect()) {
			assertThat(fresh.sync().ping()).isEqualTo("PONG");
		}
		connection.close();
	}

	@Test
	void killedServerComesBackWithItsDataOnRestartWithPersistence() {
		try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
			connection.sync().set("kept", "yes");

			this.server.kill();
			assertThatExceptionOfType(RedisException.class).isThrownBy(() -> connection.sync().get("kept"));

			this.server.restart();
			assertThat(connection.sync().get("kept")).isEqualTo("yes");
		}
	}

	@Test
	void killedServerComesBackEmptyWithoutPersistence() {
		RedisClient plainClient = RedisClient.create();
		try (LocalRedisServer plain = RedisServers.startLocal();
				RedisProxy toPlain = RedisProxy.to(plain);
				StatefulRedisConnection<String, String> connection = plainClient.connect(RedisURI.create(toPlain.url()))) {
			connection.sync().set("lost", "yes");

			plain.kill();
			plain.restart();

			assertThat(connection.sync().get("lost")).isNull();
		}
		finally {
			plainClient.shutdown();
		}
	}

}
