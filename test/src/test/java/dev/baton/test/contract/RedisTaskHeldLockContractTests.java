package dev.baton.test.contract;

import java.time.Duration;

import dev.baton.lock.LockManager;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract of tasks that hold a lock for Baton's {@link RedisDelayQueues} with its
 * {@link RedisLockManager}, on a Redis deployment of the subclass. Each lock manager and each set
 * of queues is an instance of the application with a connection of its own; on a Cluster the lock
 * and the task live in different slots.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisTaskHeldLockContractTests extends TaskHeldLockContractTests {

	private RedisBackend backend;

	@BeforeAll
	void startDeployment() {
		this.backend = startBackend();
	}

	abstract RedisBackend startBackend();

	@AfterAll
	void stopDeployment() throws Exception {
		this.backend.close();
	}

	@Override
	protected LockManager createLockManager(Duration leaseTime) {
		return RedisLockManager.builder(this.backend.connect()).leaseTime(leaseTime).build();
	}

	@Override
	protected DelayQueues createDelayQueues(LockManager lockManager) {
		return RedisDelayQueues.builder(this.backend.connect(), JsonMapper.builder().build())
			.lockManager(lockManager)
			.build();
	}

}
