package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import dev.baton.lock.LockLostEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The lock managers of one test: each records its lost locks and meters here, and all are closed
 * with this.
 */
final class TestLockManagers implements AutoCloseable {

	final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final RedisConnectionFactory connectionFactory;

	private final List<RedisLockManager> managers = new ArrayList<>();

	TestLockManagers(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	RedisLockManager manager() {
		return manager(UnaryOperator.identity());
	}

	RedisLockManager manager(Duration leaseTime) {
		return manager((builder) -> builder.leaseTime(leaseTime));
	}

	/** A manager built with the test's listener and meters, then the customizer's settings. */
	RedisLockManager manager(UnaryOperator<RedisLockManager.Builder> customizer) {
		RedisLockManager manager = customizer.apply(RedisLockManager.builder(this.connectionFactory)
			.lockLostListener(this.lostEvents::add)
			.meterRegistry(this.meters)).build();
		this.managers.add(manager);
		return manager;
	}

	RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	@Override
	public void close() {
		this.managers.forEach(RedisLockManager::close);
	}

}
