package dev.baton.autoconfigure.queue;

import org.jspecify.annotations.Nullable;

/**
 * A {@code baton.queue.*} property whose value is out of range, with the property's name as the
 * configuration spells it.
 */
public class InvalidQueueSettingException extends IllegalArgumentException {

	private final String property;

	/**
	 * Create an exception.
	 * @param queue the queue whose settings are invalid
	 * @param property the property, e.g. {@code baton.queue.queues.orders.visibility-timeout}
	 * @param problem what is wrong with its value
	 * @param cause the exception that found it, if any
	 */
	public InvalidQueueSettingException(String queue, String property, String problem, @Nullable Throwable cause) {
		super("Invalid setting of queue '" + queue + "': " + property + " " + problem, cause);
		this.property = property;
	}

	/**
	 * Create an exception for a default of every queue.
	 * @param property the property, e.g. {@code baton.queue.visibility-timeout}
	 * @param problem what is wrong with its value
	 */
	public InvalidQueueSettingException(String property, String problem) {
		super("Invalid setting: " + property + " " + problem);
		this.property = property;
	}

	/** The property as the configuration spells it. */
	public String getProperty() {
		return this.property;
	}

}
