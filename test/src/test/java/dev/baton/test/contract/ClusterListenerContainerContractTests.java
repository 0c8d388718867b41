package dev.baton.test.contract;

/** The listener container contract on a Redis Cluster of 3 primaries. */
class ClusterListenerContainerContractTests extends RedisListenerContainerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

}
