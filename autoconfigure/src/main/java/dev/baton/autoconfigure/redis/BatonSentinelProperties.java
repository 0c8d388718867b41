package dev.baton.autoconfigure.redis;

import java.time.Duration;

import dev.baton.internal.PrimarySwitchWatch;

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

	/**
	 * How long Baton's calls wait at most for the switch once the sentinels begin promoting a
	 * replica, so that nothing they write lands on the old primary and is lost; a call waits no
	 * longer than its own command timeout. 0 to let calls go to the old primary meanwhile.
	 */
	private Duration failoverHold = PrimarySwitchWatch.DEFAULT_HOLD_LIMIT;

	public boolean isFollowSwitches() {
		return this.followSwitches;
	}

	public void setFollowSwitches(boolean followSwitches) {
		this.followSwitches = followSwitches;
	}

	public Duration getFailoverHold() {
		return this.failoverHold;
	}

	public void setFailoverHold(Duration failoverHold) {
		this.failoverHold = failoverHold;
	}

}
