package dev.baton.queue.redis;

/**
 * What {@code settle.lua} does with in-flight deliveries.
 */
enum Settlement {

	/** Delete the task. */
	ACK("ack"),

	/** Make the task due again after a delay, counting the attempt. */
	RETRY("retry"),

	/** Make the task due again at its due time, not counting the attempt. */
	HAND_BACK("handback"),

	/** Move the task to the dead letters. */
	DEAD("dead"),

	/** Push the visibility deadline. */
	EXTEND("extend");

	private final String action;

	Settlement(String action) {
		this.action = action;
	}

	String action() {
		return this.action;
	}

}
