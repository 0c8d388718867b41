package dev.baton.test.contract;

/** The listener container contract on the shared standalone server. */
class StandaloneListenerContainerContractTests extends RedisListenerContainerContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
