package dev.baton.autoconfigure.redis;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * What Baton sets on the application's Redis client, so that its bounds, counted from when Redis
 * answers again, hold after an outage.
 */
@ConfigurationProperties(prefix = "baton.redis", ignoreUnknownFields = false)
public class BatonRedisProperties {

	/**
	 * Longest wait between two of Lettuce's reconnect attempts (its delay doubles from 1 ms up to
	 * this). Lettuce's own default, 30 s, lets the client reconnect only seconds after an outage
	 * of some seconds ends, and lease and visibility extensions fail meanwhile. Applies to the
	 * client resources Spring Boot creates, not to a {@code ClientResources} bean of the application.
	 */
	private Duration maxReconnectDelay = Duration.ofSeconds(1);

	public Duration getMaxReconnectDelay() {
		return this.maxReconnectDelay;
	}

	public void setMaxReconnectDelay(Duration maxReconnectDelay) {
		this.maxReconnectDelay = maxReconnectDelay;
	}

}
