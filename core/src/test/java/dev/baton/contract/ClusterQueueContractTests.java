package dev.baton.contract;

/** The queue contract on a Redis Cluster of 3 primaries. */
class ClusterQueueContractTests extends QueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.cluster();
	}

}
