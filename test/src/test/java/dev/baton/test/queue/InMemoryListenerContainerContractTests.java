package dev.baton.test.queue;

import dev.baton.queue.DelayQueues;
import dev.baton.test.contract.ListenerContainerContractTests;

/**
 * The listener container contract on {@link InMemoryDelayQueues}: the same suite as Redis passes.
 * Its clock is the system's, since the suite lets tasks fall due in real time.
 */
class InMemoryListenerContainerContractTests extends ListenerContainerContractTests {

	@Override
	protected DelayQueues createDelayQueues() {
		return new InMemoryDelayQueues();
	}

}
