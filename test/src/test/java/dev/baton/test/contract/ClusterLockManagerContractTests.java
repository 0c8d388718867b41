package dev.baton.test.contract;

/** The lock contract on a Redis Cluster of 3 primaries. */
class ClusterLockManagerContractTests extends RedisLockManagerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

}
