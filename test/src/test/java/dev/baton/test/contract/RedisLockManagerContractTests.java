package dev.baton.test.contract;

import java.time.Duration;

import dev.baton.lock.LockManager;
import dev.baton.lock.redis.RedisLockManager;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock contract for Baton's {@link RedisLockManager} on one Redis deployment, started before
 * the tests and stopped after; each deployment's subclass runs it. Each manager is an instance
 * of the application with a connection of its own.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisLockManagerContractTests extends LockManagerContractTests {

	@RegisterExtension
	final RedisDeployment deployment = new RedisDeployment(this::startBackend);

	/** Starts the deployment this suite runs against. */
	abstract RedisBackend startBackend();

	@Override
	protected LockManager createLockManager(Duration leaseTime) {
		return RedisLockManager.builder(this.deployment.backend().connect()).leaseTime(leaseTime).build();
	}

}
