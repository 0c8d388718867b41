package dev.baton.test.contract;

/** The contract of tasks that hold a lock on a Redis Cluster of 3 primaries. */
class ClusterTaskHeldLockContractTests extends RedisTaskHeldLockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

}
