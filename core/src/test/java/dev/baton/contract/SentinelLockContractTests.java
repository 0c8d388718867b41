package dev.baton.contract;

/** The lock contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelLockContractTests extends LockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
