package dev.baton.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lock contract on a Redis Cluster of 3 primaries. */
class ClusterLockContractTests extends LockContractTests {

	private static RedisBackend backend;

	@BeforeAll
	static void start() {
		backend = RedisBackend.cluster();
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
