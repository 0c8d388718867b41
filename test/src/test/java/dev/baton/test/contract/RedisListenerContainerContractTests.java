package dev.baton.test.contract;

import dev.baton.queue.DelayQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import tools.jackson.databind.json.JsonMapper;

/**
 * The listener container contract for Baton's {@link RedisDelayQueues} on one Redis deployment,
 * started before the tests and stopped after; each deployment's subclass runs it.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisListenerContainerContractTests extends ListenerContainerContractTests {

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

	@Override
	protected DelayQueues createDelayQueues() {
		return RedisDelayQueues.builder(this.backend.connect(), JsonMapper.builder().build())
			.keyPrefix("listener-contract:")
			.build();
	}

}
