package dev.baton.test.contract;

/** The lock contract on the shared standalone server. */
class StandaloneLockManagerContractTests extends RedisLockManagerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
