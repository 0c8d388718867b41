package dev.baton.contract;

/** The lock contract on a Redis Cluster of 3 primaries. */
class ClusterLockContractTests extends LockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

}
