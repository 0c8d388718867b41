package dev.baton.autoconfigure.actuate;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code baton} info contributor beyond {@code management.info.baton.enabled}.
 */
@ConfigurationProperties("management.info.baton")
public class BatonInfoProperties {

	/** The Redis part of the contributor. */
	private final Redis redis = new Redis();

	public Redis getRedis() {
		return this.redis;
	}

	/**
	 * The Redis part of the contributor.
	 */
	public static class Redis {

		/**
		 * Whether the info endpoint shows the Redis server's version and mode (INFO server, cached for a minute).
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
