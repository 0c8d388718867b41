package dev.baton.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

/** A suite that runs against one Redis deployment, started before its tests and stopped after. */
@TestInstance(Lifecycle.PER_CLASS)
abstract class ContractSuite {

	private RedisBackend backend;

	/** Starts the deployment this suite runs against. */
	abstract RedisBackend startBackend();

	@BeforeAll
	void startDeployment() {
		this.backend = startBackend();
	}

	@AfterAll
	void stopDeployment() throws Exception {
		this.backend.close();
	}

	/** The deployment, for the suite's instances to connect to. */
	RedisBackend backend() {
		return this.backend;
	}

}
