package dev.baton.contract;

/** The queue contract on the shared standalone server. */
class StandaloneQueueContractTests extends QueueContractTests {

	@Override
	RedisBackend startBackend() {
		return RedisBackend.standalone();
	}

}
