package dev.baton.test.contract;

/** The listener container contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelListenerContainerContractTests extends RedisListenerContainerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
