package dev.baton.queue.listener;

/**
 * Thrown when a listener setting is out of range; names the setting as its configuration
 * property does ({@code visibility-timeout}), so that configuration code can name the property.
 */
public class InvalidListenerSettingException extends IllegalArgumentException {

	private final String setting;

	private final String problem;

	/**
	 * Create an exception.
	 * @param setting the setting's name in kebab case, e.g. {@code batch-size}
	 * @param problem what is wrong with its value, e.g. {@code must be at least 1, was 0}
	 */
	public InvalidListenerSettingException(String setting, String problem) {
		super(setting + " " + problem);
		this.setting = setting;
		this.problem = problem;
	}

	/** The setting's name in kebab case, e.g. {@code batch-size}. */
	public String getSetting() {
		return this.setting;
	}

	/** What is wrong with the value, e.g. {@code must be at least 1, was 0}. */
	public String getProblem() {
		return this.problem;
	}

}
