package dev.baton.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lock contract on the shared standalone server. */
class StandaloneLockContractTests extends LockContractTests {

	private static RedisBackend backend;

	@BeforeAll
	static void start() {
		backend = RedisBackend.standalone();
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
