package dev.baton.test.contract;

/** The contract of tasks that hold a lock behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelTaskHeldLockContractTests extends RedisTaskHeldLockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.sentinel();
	}

}
