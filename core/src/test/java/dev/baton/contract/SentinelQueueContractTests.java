package dev.baton.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The queue contract behind Redis Sentinel: a primary, a replica and three sentinels. */
class SentinelQueueContractTests extends QueueContractTests {

	private static RedisBackend backend;

	@BeforeAll
	static void start() {
		backend = RedisBackend.sentinel();
	}

	@AfterAll
	static void stop() throws Exception {
		backend.close();
	}

	@Override
	RedisBackend backend() {
		return backend;
	}

}
