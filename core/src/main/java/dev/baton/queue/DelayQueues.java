package dev.baton.queue;

/**
 * Gives access to delay queues by name.
 */
public interface DelayQueues {

	/**
	 * Return the queue of the given name, reading and writing payloads of the given type.
	 * @param name the queue name, not blank
	 * @param payloadType the payload type
	 * @param <T> the payload type
	 * @return the queue
	 * @throws IllegalArgumentException if the name is blank, or unknown and this registry only
	 * serves declared queues
	 */
	<T> DelayQueue<T> get(String name, Class<T> payloadType);

}
