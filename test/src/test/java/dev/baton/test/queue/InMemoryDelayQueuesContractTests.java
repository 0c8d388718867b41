package dev.baton.test.queue;

import java.time.Instant;

import dev.baton.queue.DelayQueues;
import dev.baton.test.contract.DelayQueueContractTests;

/**
 * The queue contract for {@link InMemoryDelayQueues}: the same suite as Redis passes. Its clock is
 * the system's, since the suite compares due times with {@link Instant#now()}.
 */
class InMemoryDelayQueuesContractTests extends DelayQueueContractTests {

	private InMemoryDelayQueues first;

	@Override
	protected DelayQueues createDelayQueues() {
		if (this.first == null) {
			this.first = new InMemoryDelayQueues();
			return this.first;
		}
		return this.first.anotherInstance();
	}

}
