package dev.baton.contract;

/** The queue contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelQueueContractTests extends QueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
