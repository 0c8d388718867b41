package dev.baton.contract;

/** The lock contract on the shared standalone server. */
class StandaloneLockContractTests extends LockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
