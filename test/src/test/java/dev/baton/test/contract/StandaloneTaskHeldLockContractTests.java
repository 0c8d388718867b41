package dev.baton.test.contract;

/** The contract of tasks that hold a lock on the shared standalone server. */
class StandaloneTaskHeldLockContractTests extends RedisTaskHeldLockContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
