package dev.baton.test.contract;

import dev.baton.queue.DelayQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * The listener container contract for Baton's {@link RedisDelayQueues} on one Redis deployment,
 * started before the tests and stopped after; each deployment's subclass runs it.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class RedisListenerContainerContractTests extends ListenerContainerContractTests {

	@RegisterExtension
	final RedisDeployment deployment = new RedisDeployment(this::startBackend);

	/** Starts the deployment this suite runs against. */
	abstract RedisBackend startBackend();

	@Override
	protected DelayQueues createDelayQueues() {
		return RedisDelayQueues.builder(this.deployment.backend().connect(), JsonMapper.builder().build())
			.keyPrefix("listener-contract:")
			.build();
	}

}
