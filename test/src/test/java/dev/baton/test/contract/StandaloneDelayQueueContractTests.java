package dev.baton.test.contract;

/** The queue contract on the shared standalone server. */
class StandaloneDelayQueueContractTests extends RedisDelayQueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
