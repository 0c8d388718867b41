package dev.baton.queue;

/**
 * Wraps each payload's JSON before it is stored in Redis and unwraps it when it is read: to
 * encrypt payloads, or to authenticate them with a key of the application, for queues that move
 * money or carry personal data, so that whoever can read or write Redis cannot read a payload, or
 * have a forged one handled. Both calls get the queue name and the task id: bind the sealed form
 * to them, so that a payload copied onto another task does not open.
 *
 * <p>Set one on {@code RedisDelayQueues.Builder}; with Spring Boot, declare a bean of this type. A
 * payload that does not open is unreadable: a claim dead-letters it, and {@code find},
 * {@code peek} and {@code deadLetters} show its stored form.
 */
public interface PayloadEnvelope {

	/** Stores the JSON as it is. The default. */
	PayloadEnvelope NONE = new PayloadEnvelope() {

		@Override
		public String seal(String queue, String id, String json) {
			return json;
		}

		@Override
		public String open(String queue, String id, String stored) {
			return stored;
		}

	};

	/**
	 * What to store for a payload.
	 * @param queue the queue name
	 * @param id the task id
	 * @param json the payload as JSON
	 * @return the sealed form, stored in Redis
	 */
	String seal(String queue, String id, String json);

	/**
	 * The JSON of a stored payload.
	 * @param queue the queue name
	 * @param id the task id
	 * @param stored what Redis holds
	 * @return the payload as JSON
	 * @throws IllegalArgumentException if the stored form was not sealed for this task with this
	 * envelope's key (forged, tampered with, copied from another task)
	 */
	String open(String queue, String id, String stored);

}
