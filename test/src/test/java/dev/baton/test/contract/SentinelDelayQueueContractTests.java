package dev.baton.test.contract;

/** The queue contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelDelayQueueContractTests extends RedisDelayQueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
