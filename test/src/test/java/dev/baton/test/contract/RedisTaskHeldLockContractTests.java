package dev.baton.test.contract;

import java.time.Duration;

import dev.baton.lock.LockManager;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract of tasks that hold a lock for Baton's {@link RedisDelayQueues} with its
 * {@link RedisLockManager}, on a Redis deployment of the subclass. Each lock manager and each set
 * of queues is an instance of the application with a connection of its own; on a Cluster the lock
 * and the task live in different slots.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisTaskHeldLockContractTests extends TaskHeldLockContractTests {

	@RegisterExtension
	final RedisDeployment deployment = new RedisDeployment(this::startBackend);

	/** Starts the deployment this suite runs against. */
	abstract RedisBackend startBackend();

	@Override
	protected LockManager createLockManager(Duration leaseTime) {
		return RedisLockManager.builder(this.deployment.backend().connect()).leaseTime(leaseTime).build();
	}

	@Override
	protected DelayQueues createDelayQueues(LockManager lockManager) {
		return RedisDelayQueues.builder(this.deployment.backend().connect(), JsonMapper.builder().build())
			.lockManager(lockManager)
			.build();
	}

}
