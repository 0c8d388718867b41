package dev.baton.autoconfigure.redis;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Baton's following of Redis Sentinel. Read by a condition, before binding; the
 * class makes {@code baton.sentinel} one of Baton's property groups and checks its keys.
 */
@ConfigurationProperties(prefix = "baton.sentinel", ignoreUnknownFields = false)
public class BatonSentinelProperties {

	/**
	 * Whether to follow a Redis Sentinel's switch of the primary at once (subscribing to
	 * +switch-master on every sentinel) instead of writing to the old primary until it is demoted.
	 * Only where the connection factory uses Sentinel.
	 */
	private boolean followSwitches = true;

	public boolean isFollowSwitches() {
		return this.followSwitches;
	}

	public void setFollowSwitches(boolean followSwitches) {
		this.followSwitches = followSwitches;
	}

}
