package dev.baton.test.contract;

/** The lock contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelLockManagerContractTests extends RedisLockManagerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
